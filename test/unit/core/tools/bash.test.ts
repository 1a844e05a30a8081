import assert from 'node:assert/strict';
import { createBashTool } from '../../../../src/core/tools/builtin/bash';
import { ChildProcessShell } from '../../../../src/node/child-process-shell';

const context = { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal: new AbortController().signal };

describe('bash tool', () => {
  const tool = createBashTool(new ChildProcessShell('/bin/bash'), () => process.cwd());

  it('returns the output and a zero exit code', async () => {
    const result = await tool.execute(tool.inputSchema.parse({ command: 'echo probe-$((6*7))' }), context);
    assert.deepEqual(result, { output: 'probe-42\n\nExit code 0.', isError: false });
  });

  it('marks a failing command as an error the model sees, with its exit code', async () => {
    const result = await tool.execute(tool.inputSchema.parse({ command: 'echo oops >&2; exit 3' }), context);
    assert.equal(typeof result === 'object' && result.isError, true);
    assert.match(typeof result === 'object' ? result.output : '', /oops[\s\S]*Exit code 3\./);
  });

  it('stops a command at its timeout and says so', async () => {
    const result = await tool.execute(tool.inputSchema.parse({ command: 'sleep 20', timeoutSeconds: 1 }), context);
    assert.match(typeof result === 'object' ? result.output : '', /Timed out after 1 s/);
  });

  it('always needs approval and summarises the command', () => {
    assert.equal(tool.needsApproval, true);
    assert.equal(tool.summarize?.({ command: 'npm test' }), 'run `npm test`');
  });
});
