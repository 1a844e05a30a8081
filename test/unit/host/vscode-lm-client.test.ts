/**
 * The "VS Code" provider: our history as VS Code's chat messages, VS Code's streamed parts as
 * ours, the model the settings name, the token count and window for the context meter, and
 * VS Code's failures as the errors the chat explains (and retries only where a retry helps).
 */
import assert from 'node:assert/strict';
import type { LlmRequest, LlmStreamPart, ModelMessage } from '../../../src/core/llm/llm-client';
import { LlmError } from '../../../src/core/llm/llm-client';
import { isRetryable } from '../../../src/core/llm/retry';
import { createLlmClient } from '../../../src/core/llm/create-llm-client';
import { priceOf } from '../../../src/core/llm/model-info';
import { modelLabel } from '../../../src/core/llm/provider-presets';
import { VscodeLmClient, vscodeEditorModels } from '../../../src/host/llm/vscode-lm-client';
import { JUSTIFICATION } from '../../../src/host/llm/vscode-lm-messages';
import {
  ChatMessage,
  FakeChatModel,
  fakeSurface,
  LmError,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from './vscode-lm-fake';

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: '',
    system: 'You are OpenAgent.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    maxOutputTokens: 1000,
    ...overrides,
  };
}

async function collect(stream: AsyncIterable<LlmStreamPart>): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

async function failure(stream: AsyncIterable<LlmStreamPart>): Promise<Error> {
  try {
    await collect(stream);
  } catch (error) {
    return error as Error;
  }
  assert.fail('the stream was expected to fail');
}

const gpt = () => new FakeChatModel('copilot-gpt-4.1', 'GPT-4.1', 'copilot', 'gpt-4.1', 128_000);
const other = () => new FakeChatModel('acme-coder', 'Acme Coder', 'acme', 'coder', 32_000);

describe('VS Code provider: messages and tools sent', () => {
  it('sends the system prompt first, text, tool calls and tool results as VS Code parts, with the justification', async () => {
    const model = gpt();
    const { surface } = fakeSurface({ models: [model] });
    const history: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'secret thoughts', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'call_1', name: 'read_file', input: { path: 'a.txt' } },
          { type: 'tool_call', id: 'call_2', name: 'bash', input: 'not an object' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'call_1', toolName: 'read_file', output: 'hello', isError: false },
          { type: 'tool_result', toolCallId: 'call_2', toolName: 'bash', output: 'bad input', isError: true },
        ],
      },
    ];
    const tools = [{ name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object' } }];
    await collect(new VscodeLmClient(surface, '').stream(request({ messages: history, tools })));
    const [sent] = model.requests;
    assert.ok(sent);
    assert.equal(sent.options.justification, JUSTIFICATION);
    assert.match(JUSTIFICATION, /OpenAgent/);
    assert.deepEqual(sent.options.tools, tools);
    const messages = sent.messages;
    assert.deepEqual(
      messages.map((message) => message.role),
      [1, 1, 2, 1],
    );
    assert.deepEqual(messages[0], ChatMessage.User('You are OpenAgent.'));
    assert.deepEqual(messages[2]!.content, [
      new TextPart('Reading.'),
      new ToolCallPart('call_1', 'read_file', { path: 'a.txt' }),
      new ToolCallPart('call_2', 'bash', {}),
    ]);
    assert.ok(!JSON.stringify(messages).includes('secret thoughts'), 'thinking is not sent');
    assert.deepEqual(messages[3]!.content, [
      new ToolResultPart('call_1', [new TextPart('hello')]),
      new ToolResultPart('call_2', [new TextPart('Error: bad input')]),
    ]);
  });

  it('declares no tools when the request has none', async () => {
    const model = gpt();
    await collect(new VscodeLmClient(fakeSurface({ models: [model] }).surface, '').stream(request()));
    assert.equal(model.requests[0]!.options.tools, undefined);
  });
});

describe('VS Code provider: the answer streamed', () => {
  it('streams text and tool calls, estimates usage, and finishes with tool_use', async () => {
    const model = gpt();
    model.answer = async function* () {
      yield new TextPart('Let me ');
      yield new TextPart('');
      yield { kind: 'thinking', value: 'not ours' };
      yield new TextPart('look.');
      yield new ToolCallPart('c1', 'read_file', { path: 'README.md' });
      yield new ToolCallPart('', 'bash', [1, 2] as unknown as object);
    };
    const parts = await collect(new VscodeLmClient(fakeSurface({ models: [model] }).surface, '').stream(request()));
    assert.deepEqual(
      parts.filter((part) => part.type !== 'usage'),
      [
        { type: 'text_delta', text: 'Let me ' },
        { type: 'text_delta', text: 'look.' },
        { type: 'tool_call_start', id: 'c1', name: 'read_file' },
        { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'README.md' } },
        { type: 'tool_call_start', id: 'vscode_call_2', name: 'bash' },
        {
          type: 'tool_call_invalid',
          id: 'vscode_call_2',
          name: 'bash',
          rawArguments: '[1,2]',
          error: 'The arguments were not a JSON object.',
        },
        { type: 'finish', stopReason: 'tool_use' },
      ],
    );
    const usage = parts.find((part) => part.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && !usage.reported && usage.usage.inputTokens > 0);
  });

  it('drops tool calls when the request forbids them (VS Code has no "none" tool mode)', async () => {
    const model = gpt();
    model.answer = async function* () {
      yield new TextPart('Summary.');
      yield new ToolCallPart('c1', 'bash', { command: 'ls' });
    };
    const tools = [{ name: 'bash', description: 'Runs', inputSchema: { type: 'object' } }];
    const parts = await collect(
      new VscodeLmClient(fakeSurface({ models: [model] }).surface, '').stream(request({ tools, toolChoice: 'none' })),
    );
    assert.deepEqual(
      parts.filter((part) => part.type !== 'usage'),
      [
        { type: 'text_delta', text: 'Summary.' },
        { type: 'finish', stopReason: 'end_turn' },
      ],
    );
    assert.ok(model.requests[0]!.options.tools?.length, 'the tools stay declared for the history');
  });

  it('finishes with end_turn for a text answer', async () => {
    const parts = await collect(new VscodeLmClient(fakeSurface({ models: [gpt()] }).surface, '').stream(request()));
    assert.deepEqual(parts.at(-1), { type: 'finish', stopReason: 'end_turn' });
  });
});

describe('VS Code provider: which model', () => {
  it('takes the id the settings name, else a family or a name, else the first model; the request may name another', async () => {
    const first = gpt();
    const second = other();
    const { surface } = fakeSurface({ models: [first, second] });
    await collect(new VscodeLmClient(surface, '').stream(request()));
    await collect(new VscodeLmClient(surface, 'acme-coder').stream(request({ model: 'acme-coder' })));
    await collect(new VscodeLmClient(surface, '').stream(request({ model: 'coder' })));
    await collect(new VscodeLmClient(surface, '').stream(request({ model: 'GPT-4.1' })));
    assert.equal(first.requests.length, 2);
    assert.equal(second.requests.length, 2);
    assert.deepEqual(await new VscodeLmClient(surface, '').listModels(), ['copilot-gpt-4.1', 'acme-coder']);
  });

  it('names the models there are when the one asked for is gone, and says when there are none', async () => {
    const named = await failure(
      new VscodeLmClient(fakeSurface({ models: [gpt()] }).surface, 'gone').stream(request({ model: 'gone' })),
    );
    assert.ok(named instanceof LlmError && named.kind === 'bad_request');
    assert.match(named.message, /no chat model "gone".*copilot-gpt-4\.1/);
    const none = await failure(new VscodeLmClient(fakeSurface().surface, '').stream(request()));
    assert.match(none.message, /VS Code offers no chat models/);
  });

  it("gives the model's window and counts the request's tokens with the model's own tokenizer", async () => {
    const model = gpt();
    const client = new VscodeLmClient(fakeSurface({ models: [model] }).surface, '');
    assert.equal(await client.server.contextWindow('', undefined), 128_000);
    const tools = [{ name: 'read_file', description: 'Reads', inputSchema: { type: 'object' } }];
    const counted = await client.server.countInputTokens(request({ tools }));
    assert.ok(counted && counted > 5, String(counted));
    assert.equal(model.countTokensCalls, 3, 'the system prompt, the message and the tools');
  });
});

describe('VS Code provider: failures', () => {
  const failing = (error: unknown, midway = false) => {
    const model = gpt();
    model.answer = midway
      ? async function* () {
          yield new TextPart('partial');
          throw error;
        }
      : () => Promise.reject(error);
    return new VscodeLmClient(fakeSurface({ models: [model] }).surface, '');
  };

  it('maps LanguageModelError codes to kinds the chat explains, none of them retried', async () => {
    const cases: Array<[unknown, LlmError['kind'], RegExp]> = [
      [LmError.NoPermissions('The user did not allow it'), 'authentication', /did not let OpenAgent.*allow it/],
      [LmError.Blocked('Too many requests'), 'rate_limit', /blocked/],
      [LmError.NotFound('No such model'), 'bad_request', /no longer offers/],
      [new Error('You have exceeded your premium requests quota'), 'rate_limit', /quota is used up/],
      [new Error('prompt is too long: 200000 tokens'), 'context_overflow', /context window/],
      [new Error('something odd'), 'server', /failed: something odd/],
    ];
    for (const [error, kind, words] of cases) {
      const mapped = await failure(failing(error).stream(request()));
      assert.ok(mapped instanceof LlmError, String(mapped));
      assert.equal(mapped.kind, kind, mapped.message);
      assert.match(mapped.message, words);
      assert.equal(isRetryable(mapped, 'vscode'), false, mapped.message);
    }
  });

  it('retries a rate limit, which passes', async () => {
    const mapped = await failure(failing(new Error('Rate limit exceeded, try again')).stream(request()));
    assert.ok(mapped instanceof LlmError && mapped.kind === 'rate_limit');
    assert.equal(isRetryable(mapped, 'vscode'), true);
  });

  it('a stream that fails mid-way ends with the mapped error after the text it gave', async () => {
    const parts: LlmStreamPart[] = [];
    let caught: unknown;
    try {
      for await (const part of failing(LmError.Blocked('stop'), true).stream(request())) parts.push(part);
    } catch (error) {
      caught = error;
    }
    assert.deepEqual(parts, [{ type: 'text_delta', text: 'partial' }]);
    assert.ok(caught instanceof LlmError && caught.kind === 'rate_limit');
  });

  it("Stop cancels VS Code's token and ends the stream at once, even when the model never answers", async () => {
    const model = gpt();
    model.answer = () => new Promise<never>(() => undefined);
    const controller = new AbortController();
    const stream = new VscodeLmClient(fakeSurface({ models: [model] }).surface, '').stream(
      request({ signal: controller.signal }),
    );
    const ended = failure(stream);
    while (model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await ended;
    assert.equal(error.name, 'AbortError');
    assert.equal(model.requests[0]!.token.isCancellationRequested, true);
  });
});

describe('VS Code provider: settings and elsewhere', () => {
  it('is a provider in the editor; the CLI (no editor models) says it exists only in the editor', () => {
    const outside = createLlmClient({ provider: 'vscode', model: '', baseUrl: '' }, undefined);
    assert.ok(!outside.ok);
    assert.equal(outside.reason, 'editor_only');
    assert.match(outside.message, /exists only in the editor/);
    const inside = createLlmClient(
      { provider: 'vscode', model: 'copilot-gpt-4.1', baseUrl: '' },
      undefined,
      {},
      vscodeEditorModels(fakeSurface({ models: [gpt()] }).surface),
    );
    assert.ok(inside.ok);
    assert.equal(inside.client.provider, 'vscode');
    assert.equal(inside.model, 'copilot-gpt-4.1');
  });

  it('has no price (budgets count its tokens), and is named "VS Code" without a model', () => {
    assert.equal(priceOf('vscode', 'gpt-4.1'), undefined);
    assert.ok(priceOf('openai', 'gpt-4.1'));
    assert.equal(modelLabel('vscode', ''), 'VS Code');
    assert.equal(modelLabel('vscode', 'copilot-gpt-4.1'), 'copilot-gpt-4.1');
  });
});
