import assert from 'node:assert/strict';
import type { ApprovalGate, ApprovalRequest } from '../../../../src/core/policy/approval';
import { AutoApprovalGate } from '../../../../src/core/policy/auto-approval';
import { RiskProbe } from '../../../fixtures/call-risk';

const probe = new RiskProbe();

/** A request as the executor makes it: with the call's assessment. */
async function request(toolName: string, input: unknown, conversationId = 'c1'): Promise<ApprovalRequest> {
  return {
    conversationId,
    toolCallId: `call-${toolName}`,
    toolName,
    input,
    summary: toolName,
    argumentsHash: 'hash',
    risk: await probe.risk(toolName, input),
    signal: new AbortController().signal,
  };
}

/** The user's gate: records what it was asked and denies. */
function askingGate(): ApprovalGate & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    request: async (call) => {
      asked.push(call.toolName);
      return { approved: false, source: 'user' };
    },
  };
}

describe('auto-approve for one conversation (approval decorator)', () => {
  it('asks the user as usual while it is off', async () => {
    const inner = askingGate();
    const gate = new AutoApprovalGate(inner, () => false);
    const decision = await gate.request(await request('write_file', { path: 'src/a.ts', content: 'x' }));
    assert.deepEqual(decision, { approved: false, source: 'user' });
    assert.deepEqual(inner.asked, ['write_file']);
  });

  it('approves as a session rule without asking while it is on', async () => {
    const inner = askingGate();
    const gate = new AutoApprovalGate(inner, () => true);
    for (const [tool, input] of [
      ['write_file', { path: 'src/a.ts', content: 'x' }],
      ['edit_file', { path: 'README.md', edits: [] }],
      ['bash', { command: 'npm test' }],
      ['bash', { command: 'git status && git diff' }],
      ['background_run', { command: 'npm run watch' }],
    ] as const) {
      const decision = await gate.request(await request(tool, input));
      assert.equal(decision.approved, true, tool);
      assert.equal(decision.source, 'session_rule');
    }
    assert.deepEqual(inner.asked, []);
  });

  it('is per conversation: another conversation is still asked about', async () => {
    const inner = askingGate();
    const gate = new AutoApprovalGate(inner, (conversationId) => conversationId === 'c1');
    assert.equal((await gate.request(await request('write_file', { path: 'a.ts', content: '' }, 'c1'))).approved, true);
    assert.equal(
      (await gate.request(await request('write_file', { path: 'a.ts', content: '' }, 'c2'))).approved,
      false,
    );
    assert.deepEqual(inner.asked, ['write_file']);
  });

  it('still asks about protected paths', async () => {
    const inner = askingGate();
    const gate = new AutoApprovalGate(inner, () => true);
    for (const path of [
      '.env',
      '.git/config',
      '.vscode/settings.json',
      '.github/workflows/ci.yml',
      'package-lock.json',
      '../outside.txt',
      '/etc/passwd',
    ]) {
      const decision = await gate.request(await request('write_file', { path, content: 'x' }));
      assert.equal(decision.source, 'user', path);
    }
    assert.equal(inner.asked.length, 7);
  });

  it('still asks about commands that name a protected path or cannot be analysed', async () => {
    for (const command of [
      'cat .env',
      'echo x > .env.local',
      'rm -rf .git',
      'cp a ~/.bashrc',
      'node --env-file=.env app.js',
      'git status; $(cat .git/config)',
      'rm package-lock.json',
      'cat ../secrets.txt',
      'echo "unclosed',
      'eval "$X"',
    ]) {
      assert.equal(await probe.asksAnyway('bash', { command }), true, command);
    }
  });

  it('lets ordinary commands and file paths through', async () => {
    for (const command of [
      'npm test',
      'git status',
      'ls -la src',
      'grep -rn "TODO" src',
      'npm run build -- --env=production',
    ]) {
      assert.equal(await probe.asksAnyway('bash', { command }), false, command);
    }
    assert.equal(await probe.asksAnyway('write_file', { path: 'src/environment.ts' }), false);
  });
});
