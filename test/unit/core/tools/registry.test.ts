import assert from 'node:assert/strict';
import { z } from 'zod';
import { thinkTool } from '../../../../src/core/tools/builtin/think';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { defineTool } from '../../../../src/core/tools/tool';

const echo = defineTool({
  name: 'echo',
  description: 'Echo.',
  inputSchema: z.object({ text: z.string().describe('What to echo'), times: z.number().int().default(1) }),
  readOnly: true,
  needsApproval: false,
  async execute({ text }) {
    return text;
  },
});

describe('ToolRegistry', () => {
  it('describes tools to the model as JSON Schema', () => {
    const registry = new ToolRegistry([echo]);
    const [definition] = registry.definitions();
    assert.equal(definition?.name, 'echo');
    assert.deepEqual(definition?.inputSchema.required, ['text']);
    assert.equal(
      (definition?.inputSchema.properties as Record<string, { description?: string }>).text?.description,
      'What to echo',
    );
    assert.equal(definition?.inputSchema.$schema, undefined);
  });

  it('refuses a second tool with a taken name, and bad names', () => {
    const registry = new ToolRegistry([echo]);
    assert.throws(() => registry.register(echo), /already registered/);
    assert.throws(() => registry.register({ ...echo, name: 'has space' }), /Invalid tool name/);
  });

  it('unregisters and filters', () => {
    const registry = new ToolRegistry([thinkTool]);
    const remove = registry.register(echo);
    assert.deepEqual(
      registry.definitions((tool) => tool.name !== 'think').map((definition) => definition.name),
      ['echo'],
    );
    remove();
    assert.equal(registry.get('echo'), undefined);
  });
});
