/**
 * Other extensions' VS Code tools as ours: named `vscode_<name>`, from the extension whose
 * package.json contributes them, with their schema for the model, always asking, run through
 * vscode.lm.invokeTool with our cancellation and no chat invocation token, their results as text.
 */
import assert from 'node:assert/strict';
import { ToolRegistry } from '../../../src/core/tools/registry';
import type { AnyTool, ToolContext } from '../../../src/core/tools/tool';
import { listVscodeTools, resultText, vscodeTools } from '../../../src/host/llm/vscode-tools';
import { fakeSurface, PromptTsxPart, TextPart, textResult, toolInfo, type FakeTool } from './vscode-lm-fake';

const OWN = { ownExtensionId: 'openagent.openagent' };

function context(signal = new AbortController().signal): ToolContext {
  return { conversationId: 'c1', agentId: 'lead', toolCallId: 'call_1', signal };
}

function only(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, `${name} among ${tools.map((candidate) => candidate.name).join(', ')}`);
  return tool;
}

const weather: FakeTool = {
  info: toolInfo(
    'get_weather',
    { type: 'object', properties: { city: { type: 'string', maxLength: 80 } }, required: ['city'] },
    'Tells the weather of a city.',
  ),
  extension: 'acme.weather',
  invoke: (input) => textResult(`Sunny in ${(input as { city: string }).city}`),
};

describe('VS Code tools: offered as ours', () => {
  it('names them vscode_<name>, says where they come from, and keeps their schema (engine-safe for the model)', () => {
    const { surface } = fakeSurface({ tools: [weather] });
    const tool = only(vscodeTools(surface, OWN, new Set()), 'vscode_get_weather');
    assert.match(
      tool.description,
      /^Tells the weather of a city\. \(a VS Code tool from the extension acme\.weather\)$/,
    );
    const [definition] = new ToolRegistry([tool]).definitions();
    assert.deepEqual(definition!.inputSchema, {
      type: 'object',
      properties: { city: { type: 'string', description: '(max 80 chars)' } },
      required: ['city'],
    });
  });

  it('asks before every call (nothing is known of what it does), versioned by its definition', () => {
    const { surface } = fakeSurface({ tools: [weather] });
    const tool = only(vscodeTools(surface, OWN, new Set()), 'vscode_get_weather');
    assert.equal(tool.readOnly, false);
    assert.equal(tool.needsApproval, true);
    assert.equal(tool.summarize?.({}), 'use get_weather from the extension acme.weather');
    const changed = fakeSurface({
      tools: [{ ...weather, info: toolInfo('get_weather', { type: 'object' }, 'Now it deletes files.') }],
    }).surface;
    assert.notEqual(only(vscodeTools(changed, OWN, new Set()), 'vscode_get_weather').version, tool.version);
  });

  it('runs through invokeTool with the input, no chat invocation token and a token Stop cancels', async () => {
    let seenToken: { isCancellationRequested: boolean } | undefined;
    const { surface, invocations } = fakeSurface({
      tools: [
        {
          ...weather,
          invoke: (input, token) => {
            seenToken = token;
            return textResult(`Rain in ${(input as { city: string }).city}`);
          },
        },
      ],
    });
    const tool = only(vscodeTools(surface, OWN, new Set()), 'vscode_get_weather');
    assert.deepEqual(await tool.execute({ city: 'Oslo' }, context()), { output: 'Rain in Oslo' });
    assert.deepEqual(invocations, [{ name: 'get_weather', input: { city: 'Oslo' }, toolInvocationToken: undefined }]);
    assert.equal(seenToken?.isCancellationRequested, false);
  });

  it('leaves out OpenAgent’s own tools and VS Code’s own (no extension contributes them), saying why', () => {
    const { surface } = fakeSurface({
      tools: [
        weather,
        { info: toolInfo('openagent_thing'), extension: 'openagent.openagent', invoke: () => textResult('') },
        { info: toolInfo('core_tool'), invoke: () => textResult('') },
      ],
    });
    const listings = listVscodeTools(surface, OWN);
    assert.deepEqual(
      listings.map((listing) => [listing.name, listing.offeredAs, listing.extension, listing.leftOut]),
      [
        ['core_tool', undefined, undefined, "VS Code's own tool (its agent's, not an extension's)"],
        ['get_weather', 'vscode_get_weather', 'acme.weather', undefined],
        ['openagent_thing', undefined, 'openagent.openagent', "OpenAgent's own tool"],
      ],
    );
    assert.deepEqual(
      vscodeTools(surface, OWN, new Set()).map((tool) => tool.name),
      ['vscode_get_weather'],
    );
  });

  it('gives a tool without a schema (or a non-object one) an empty object schema', () => {
    const { surface } = fakeSurface({
      tools: [
        { info: toolInfo('bare'), extension: 'acme.bare', invoke: () => textResult('') },
        { info: toolInfo('stringy', { type: 'string' }), extension: 'acme.bare', invoke: () => textResult('') },
      ],
    });
    const tools = vscodeTools(surface, OWN, new Set());
    assert.equal(tools.length, 2);
    for (const tool of tools) assert.deepEqual(tool.inputJsonSchema, { type: 'object', properties: {} });
  });
});

describe('VS Code tools: results', () => {
  const { surface } = fakeSurface();

  it('joins text parts, reads prompt-tsx parts as their text, describes data parts', () => {
    const tsx = new PromptTsxPart({
      node: {
        type: 1,
        ctor: 2,
        props: {},
        children: [
          { type: 2, text: 'From ' },
          { type: 2, text: 'TSX' },
        ],
      },
    });
    const data = { mimeType: 'image/png', data: new Uint8Array(12) };
    assert.equal(
      resultText(surface, { content: [new TextPart('one'), tsx, data] }),
      'one\nFrom TSX\n[image/png data, 12 bytes — not shown]',
    );
    assert.equal(resultText(surface, { content: [] }), '(The tool returned nothing.)');
    assert.equal(resultText(surface, undefined), '(The tool returned nothing.)');
  });

  it('a throwing tool is an error result the model reads', async () => {
    const failing = fakeSurface({
      tools: [
        {
          ...weather,
          invoke: () => {
            throw new Error('the weather service is down');
          },
        },
      ],
    }).surface;
    const tool = only(vscodeTools(failing, OWN, new Set()), 'vscode_get_weather');
    assert.deepEqual(await tool.execute({ city: 'Oslo' }, context()), {
      output: 'get_weather failed: the weather service is down',
      isError: true,
    });
  });
});
