/**
 * Issue 35, item 5, through the agent loop: hooks from `.claude/settings.json` run by the real
 * runner in the real sandbox, against the fake model server. On the request bodies the model
 * received: a PreToolUse hook's exit 2 blocks a command with its reason; `updatedInput`
 * rewrites one; `permissionDecision: "allow"` never lets through what our assessment asks
 * about (a protected write, a call the policy asks about); "ask" asks where policy would not.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { claudeSettings, hookRig, hookSession, type HookRig } from '../../../fixtures/shared-hooks-rig';

const ALLOW = `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;

async function conversation(
  rig: HookRig,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  options: { autoApprove: boolean },
): Promise<string[]> {
  const server = await FakeModelServer.start({
    scenario: {
      name: 'calls tools under hooks',
      turns: [...calls.map((call, index) => ({ toolCalls: [{ id: `t${index}`, ...call }] })), { text: 'Done.' }],
    },
  });
  try {
    const { session, run } = hookSession(server, rig);
    session.switches.setAutoApprove(options.autoApprove);
    await run('do it');
    await session.dispose();
    return server.modelCalls.map((call) => JSON.stringify(call.body));
  } finally {
    await server.close();
  }
}

describe('shared-format hooks through the agent loop (issue 35, item 5)', function () {
  this.timeout(120_000);

  it('a PreToolUse hook blocks a bash command with exit 2, and the model reads why', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `input=$(cat); case "$input" in *'rm -rf'*) echo "HOOK_SAYS_NO_RM" >&2; exit 2;; esac; exit 0`,
      ),
      'build/keep.txt': 'keep\n',
    });
    const bodies = await conversation(rig, [{ name: 'bash', arguments: { command: 'rm -rf build' } }], {
      autoApprove: true,
    });
    assert.equal(bodies.length, 2);
    assert.match(bodies[1]!, /Blocked by a hook: HOOK_SAYS_NO_RM/);
    assert.ok(fs.existsSync(path.join(rig.root, 'build/keep.txt')), 'the command did not run');
    assert.equal(rig.asked.length, 1, 'the hook was allowed once before it ran');
    assert.match(rig.asked[0]!, /Allow hook `input=.*` from \.claude\/settings\.json on PreToolUse\(Bash\)/);
  });

  it('updatedInput rewrites the command that runs', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo REWRITTEN_BY_HOOK"}}}'`,
      ),
    });
    const bodies = await conversation(rig, [{ name: 'bash', arguments: { command: 'echo ORIGINAL_COMMAND' } }], {
      autoApprove: true,
    });
    assert.match(bodies[1]!, /REWRITTEN_BY_HOOK/);
    assert.doesNotMatch(bodies[1]!.split('ORIGINAL_COMMAND').slice(2).join(''), /ORIGINAL_COMMAND/);
  });

  it('an updatedInput our tool cannot take blocks the call with a clear message', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":42}}}'`,
      ),
    });
    const bodies = await conversation(rig, [{ name: 'bash', arguments: { command: 'echo hi' } }], {
      autoApprove: true,
    });
    assert.match(bodies[1]!, /a PreToolUse hook rewrote the input of bash into one that is not valid/);
  });

  it('"allow" from a hook cannot allow a protected write, even with auto-approve on', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Write|Edit', ALLOW),
      '.openagent/agent.yaml': 'tools: {}\n',
    });
    const bodies = await conversation(
      rig,
      [{ name: 'write_file', arguments: { path: '.openagent/agent.yaml', content: 'tools: {allow: ["*"]}\n' } }],
      { autoApprove: true },
    );
    assert.equal(rig.approvals.length, 1, 'the user was asked');
    assert.ok(rig.approvals[0]!.risk.protectedPath);
    assert.match(bodies[1]!, /User denied this tool call/);
    assert.equal(fs.readFileSync(path.join(rig.root, '.openagent/agent.yaml'), 'utf8'), 'tools: {}\n');
  });

  it('"allow" from a hook does not answer for a call the policy asks about', async () => {
    const rig = hookRig({ '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', ALLOW) });
    await conversation(rig, [{ name: 'bash', arguments: { command: 'echo hi > made.txt' } }], { autoApprove: false });
    assert.equal(rig.approvals.length, 1);
    assert.ok(!fs.existsSync(path.join(rig.root, 'made.txt')), 'denied by the user, so it did not run');
  });

  it('"ask" from a hook asks the user where auto-approve would allow', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"HOOK_WANTS_A_HUMAN"}}'`,
      ),
    });
    rig.approve = true;
    await conversation(rig, [{ name: 'bash', arguments: { command: 'echo hi > made.txt' } }], { autoApprove: true });
    assert.equal(rig.approvals.length, 1);
    assert.match(rig.approvals[0]!.risk.inPerson ?? '', /HOOK_WANTS_A_HUMAN/);
    // Approved for a hook's sake, it still ran confined (a hook's ask is not a reason to let it out).
    assert.ok(fs.existsSync(path.join(rig.root, 'made.txt')));
  });

  it('in an untrusted workspace no repository hook runs, nor is asked about', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', '*', `cat >/dev/null; touch HOOK_RAN; exit 2`),
    });
    rig.trusted = false;
    const bodies = await conversation(rig, [{ name: 'bash', arguments: { command: 'echo fine' } }], {
      autoApprove: true,
    });
    assert.equal(rig.asked.length, 0);
    assert.ok(!fs.existsSync(path.join(rig.root, 'HOOK_RAN')));
    assert.doesNotMatch(bodies[1]!, /Blocked by a hook/);
  });

  it('a hook the user did not allow does not run; a changed command asks again', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `cat >/dev/null; touch HOOK_RAN_1`),
    });
    rig.answer = false;
    await conversation(rig, [{ name: 'bash', arguments: { command: 'echo one' } }], { autoApprove: true });
    assert.equal(rig.asked.length, 1);
    assert.ok(!fs.existsSync(path.join(rig.root, 'HOOK_RAN_1')), 'not allowed: not run');
    assert.ok(rig.reports.some((report) => /is not allowed, so it did not run/.test(report)));

    // Allowed in a later window (a fresh rig over the same files would do the same): it runs, once asked.
    const second = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `cat >/dev/null; touch HOOK_RAN_2`),
    });
    await conversation(second, [{ name: 'bash', arguments: { command: 'echo two' } }], { autoApprove: true });
    await conversation(second, [{ name: 'bash', arguments: { command: 'echo three' } }], { autoApprove: true });
    assert.equal(second.asked.length, 1, 'asked once, remembered');
    assert.ok(fs.existsSync(path.join(second.root, 'HOOK_RAN_2')));
    second.write('.claude/settings.json', claudeSettings('PreToolUse', 'Bash', `cat >/dev/null; touch HOOK_RAN_3`));
    await conversation(second, [{ name: 'bash', arguments: { command: 'echo four' } }], { autoApprove: true });
    assert.equal(second.asked.length, 2, 'the changed command asks again');
    assert.ok(fs.existsSync(path.join(second.root, 'HOOK_RAN_3')));
  });

  it('a Stop hook sends the agent back to work at most 3 times; UserPromptSubmit context reaches the model', async () => {
    const rig = hookRig({
      '.claude/settings.json': JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; echo "RUN_THE_TESTS_FIRST" >&2; exit 2' }] }],
          UserPromptSubmit: [
            { hooks: [{ type: 'command', command: 'cat >/dev/null; echo PROMPT_CONTEXT_FROM_HOOK' }] },
          ],
        },
      }),
    });
    const server = await FakeModelServer.start({
      scenario: { name: 'ends its turn', turns: [1, 2, 3, 4, 5, 6].map((n) => ({ text: `Answer ${n}.` })) },
    });
    try {
      const { session, run } = hookSession(server, rig);
      await run('hello');
      await session.dispose();
      const bodies = server.modelCalls.map((call) => JSON.stringify(call.body));
      assert.equal(bodies.length, 4, 'the first answer and 3 continuations');
      assert.match(bodies[0]!, /PROMPT_CONTEXT_FROM_HOOK/);
      assert.match(bodies[1]!, /RUN_THE_TESTS_FIRST/);
    } finally {
      await server.close();
    }
  });
});
