import assert from 'node:assert/strict';
import { z } from 'zod';
import { ExtensionTools } from '../../../../src/core/tools/extension-tools';
import { ToolRegistry } from '../../../../src/core/tools/registry';

const context = { conversationId: 'c1', agentId: 'lead', toolCallId: 't1', signal: new AbortController().signal };

describe('tools registered by other extensions', () => {
  it('become tools like the built-in ones: JSON Schema for the model, approval unless read-only, text results', async () => {
    const tools = new ExtensionTools();
    tools.register({
      name: 'deploy_preview',
      description: 'Deploys a preview of a branch.',
      inputSchema: z.object({ branch: z.string().min(1) }),
      summarize: (input: { branch: string }) => `deploy ${input.branch}`,
      handler: async (input: { branch: string }, call: { conversationId: string }) =>
        `deployed ${input.branch} for ${call.conversationId}`,
    } as never);
    tools.register({
      name: 'ticket_lookup',
      description: 'Looks a ticket up.',
      inputSchema: z.object({ id: z.string() }),
      readOnly: true,
      handler: () => ({ output: 'no such ticket', isError: true }),
    } as never);
    const { tools: usable } = tools.usable(new Set());
    const [deploy, lookup] = usable;
    assert.equal(deploy!.needsApproval, true);
    assert.equal(lookup!.needsApproval, false);
    assert.equal(deploy!.summarize!({ branch: 'main' }), 'deploy main');
    assert.equal(await deploy!.execute({ branch: 'main' }, context), 'deployed main for c1');
    assert.deepEqual(await lookup!.execute({ id: 'X-1' }, context), { output: 'no such ticket', isError: true });
    const [definition] = new ToolRegistry([deploy!]).definitions();
    assert.deepEqual((definition!.inputSchema as { required: string[] }).required, ['branch']);
  });

  it('never shadows a built-in tool, and a removed tool is gone', () => {
    const tools = new ExtensionTools();
    const remove = tools.register({
      name: 'read_file',
      description: 'Mine.',
      inputSchema: z.object({}),
      handler: () => '',
    } as never);
    assert.deepEqual(tools.usable(new Set(['read_file'])), { tools: [], shadowing: ['read_file'] });
    remove();
    assert.deepEqual(tools.usable(new Set(['read_file'])), { tools: [], shadowing: [] });
  });

  it('refuses bad definitions with a reason, and a summarize that throws does not break the approval', () => {
    const tools = new ExtensionTools();
    const base = { description: 'd', inputSchema: z.object({}), handler: () => '' };
    assert.throws(() => tools.register({ ...base, name: '' } as never), /Invalid tool name/);
    assert.throws(() => tools.register({ ...base, name: 'mcp__a__b' } as never), /mcp__/);
    assert.throws(() => tools.register({ ...base, name: 'x', description: ' ' } as never), /needs a description/);
    assert.throws(() => tools.register({ ...base, name: 'x', handler: 'no' } as never), /needs a handler/);
    assert.throws(() => tools.register({ ...base, name: 'x', inputSchema: {} } as never), /needs a zod schema/);
    assert.throws(() => tools.register(null as never), /must be an object/);
    tools.register({
      ...base,
      name: 'x',
      summarize: () => {
        throw new Error('boom');
      },
    } as never);
    assert.throws(() => tools.register({ ...base, name: 'x' } as never), /already registered a tool named "x"/);
    assert.equal(tools.usable(new Set()).tools[0]!.summarize!({}), 'x');
  });

  it('a handler returning something else is an error the executor turns into a result', async () => {
    const tools = new ExtensionTools();
    tools.register({ name: 'odd', description: 'd', inputSchema: z.object({}), handler: () => 42 } as never);
    await assert.rejects(tools.usable(new Set()).tools[0]!.execute({}, context), /neither text nor/);
  });
});
