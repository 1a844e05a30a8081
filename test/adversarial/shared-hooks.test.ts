/**
 * Hostile shared-format hooks (issue 35, item 5), run by the real runner in the real sandbox:
 * one that never exits, prints 100 MB, prints broken JSON, leaves a child running, writes
 * outside the workspace, does not read a large stdin; a catastrophic matcher; 10,000 hooks in a
 * file; a hooks file that is a FIFO or a link out of the workspace. Each holds: the agent goes
 * on, within the hook's time, and nothing outlives the hook.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseHookFile, MAX_HOOKS_PER_FILE } from '../../src/core/hooks/shared-hook-config';
import { matcherMatches, matcherProblem } from '../../src/core/hooks/shared-hook-tools';
import { claudeSettings, hookRig, type HookRig } from '../fixtures/shared-hooks-rig';

async function preToolUse(rig: HookRig, input: unknown = { command: 'echo hi' }, signal?: AbortSignal) {
  return rig.hooks.preToolUse({
    conversationId: 'c1',
    agentId: 'lead',
    toolCallId: 't1',
    toolName: 'bash',
    input,
    ...(signal ? { signal } : {}),
  });
}

describe('hostile shared-format hooks (issue 35, item 5)', function () {
  this.timeout(120_000);

  it('a hook that never exits is stopped at its timeout, its whole tree killed', async () => {
    const rig = hookRig();
    const pidFile = path.join(rig.root, 'pids');
    rig.write(
      '.claude/settings.json',
      claudeSettings(
        'PreToolUse',
        'Bash',
        `(sleep 300 & echo $! >> pids; wait) & sleep 300 & echo $! >> pids; wait`,
        2,
      ),
    );
    const started = Date.now();
    const decision = await preToolUse(rig);
    assert.equal(decision, undefined, 'a timeout does not block');
    assert.ok(Date.now() - started < 30_000);
    assert.ok(rig.reports.some((report) => /did not finish within 2 s/.test(report)));
    // The pids are the sandbox's own (its PID namespace): none of its processes may remain.
    const leftovers = execFileSync('ps', ['-eo', 'pid,args'])
      .toString()
      .split('\n')
      .filter((line) => /sleep 300/.test(line));
    assert.deepEqual(leftovers, [], `left running: ${leftovers.join('; ')}`);
    assert.ok(fs.existsSync(pidFile));
  });

  it('a hook that prints 100 MB is stopped; what it kept is capped', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `head -c 104857600 /dev/zero | tr '\\0' x`, 60),
    });
    const before = process.memoryUsage().rss;
    const decision = await preToolUse(rig);
    assert.equal(decision, undefined);
    assert.ok(
      rig.reports.some((report) => /printed more than 16 MB and was stopped/.test(report)),
      rig.reports.join('\n'),
    );
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024);
  });

  it('invalid JSON on stdout blocks nothing and is reported', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `cat >/dev/null; echo '{"hookSpecificOutput": {'`),
    });
    assert.equal(await preToolUse(rig), undefined);
    assert.ok(rig.reports.some((report) => /not JSON|is not/.test(report)));
  });

  it('a background child the hook leaves behind does not outlive it', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `cat >/dev/null; nohup setsid sleep 301 >/dev/null 2>&1 & echo started`,
      ),
    });
    await preToolUse(rig);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const leftovers = execFileSync('ps', ['-eo', 'pid,args'])
      .toString()
      .split('\n')
      .filter((line) => /sleep 301/.test(line));
    assert.deepEqual(leftovers, []);
  });

  it('a hook cannot write outside the workspace, nor into its protected paths', async () => {
    const rig = hookRig({ '.git/config': '[core]\n' });
    const victim = path.join(rig.outside, 'victim.txt');
    fs.writeFileSync(victim, 'original\n');
    rig.write(
      '.claude/settings.json',
      claudeSettings(
        'PreToolUse',
        'Bash',
        `cat >/dev/null; echo pwned > ${victim}; echo pwned >> .git/config; echo ok > inside.txt`,
      ),
    );
    await preToolUse(rig);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'original\n');
    assert.equal(fs.readFileSync(path.join(rig.root, '.git/config'), 'utf8'), '[core]\n');
    assert.equal(fs.readFileSync(path.join(rig.root, 'inside.txt'), 'utf8'), 'ok\n', 'the workspace is writable');
  });

  it('a hook that never reads its stdin does not deadlock on a large tool_input', async () => {
    const rig = hookRig({
      '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `sleep 1; echo done >&2; exit 2`, 30),
    });
    const decision = await preToolUse(rig, { command: `echo ${'x'.repeat(5_000_000)}` });
    assert.deepEqual(decision, { block: 'done' });
    const slow = hookRig({
      '.claude/settings.json': claudeSettings(
        'PreToolUse',
        'Bash',
        `while IFS= read -r -n 1000 line; do sleep 0.001; done; exit 0`,
        3,
      ),
    });
    const started = Date.now();
    await preToolUse(slow, { command: `echo ${'y'.repeat(5_000_000)}` });
    assert.ok(Date.now() - started < 30_000);
  });

  it('a Stop kills a running hook at once', async () => {
    const rig = hookRig({ '.claude/settings.json': claudeSettings('PreToolUse', 'Bash', `sleep 302`, 600) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    await assert.rejects(preToolUse(rig, undefined, controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const leftovers = execFileSync('ps', ['-eo', 'pid,args'])
      .toString()
      .split('\n')
      .filter((line) => /sleep 302/.test(line));
    assert.deepEqual(leftovers, []);
  });

  it('a catastrophic regular expression is not run: it is reported and its hooks do not run', () => {
    const evil = '(a+)+$|^(a|a?)+$';
    assert.match(matcherProblem(evil) ?? '', /regular expression OpenAgent does not run/);
    const parsed = parseHookFile('.claude/settings.json', claudeSettings('PreToolUse', evil, 'exit 2'), 'workspace');
    assert.equal(parsed.hooks.length, 0);
    assert.equal(parsed.problems.length, 1);
    const started = Date.now();
    assert.equal(matcherMatches(`${'*a'.repeat(200)}b`, ['a'.repeat(60)]), false);
    assert.ok(Date.now() - started < 1_000, 'wildcards match in linear-ish time');
    assert.ok(matcherMatches('Edit|Write', ['write_file', 'Write']));
    assert.ok(matcherMatches('mcp__github__.*', ['mcp__github__create_issue']));
    assert.ok(!matcherMatches('Bash', ['read_file', 'Read']));
  });

  it('10,000 hooks in a file: the first 100 are kept, the rest reported', async () => {
    const many = Array.from({ length: 10_000 }, (_, index) => ({ type: 'command', command: `exit ${index % 2}` }));
    const parsed = parseHookFile(
      '.claude/settings.json',
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: many }] } }),
      'workspace',
    );
    assert.equal(parsed.hooks.length, MAX_HOOKS_PER_FILE);
    assert.match(parsed.problems.join('\n'), /more than 100 hooks: 9900 of them do not run/);
  });

  it('a hooks file that is a FIFO is not read (no hang), one linking out of the workspace neither', async () => {
    const rig = hookRig();
    fs.mkdirSync(path.join(rig.root, '.claude'), { recursive: true });
    execFileSync('mkfifo', [path.join(rig.root, '.claude/settings.json')]);
    const outsideFile = path.join(rig.outside, 'hooks.json');
    fs.writeFileSync(outsideFile, claudeSettings('PreToolUse', '*', 'touch RAN_FROM_OUTSIDE; exit 2'));
    fs.mkdirSync(path.join(rig.root, '.github/hooks'), { recursive: true });
    fs.symlinkSync(outsideFile, path.join(rig.root, '.github/hooks/evil.json'));
    const { hooks, problems } = await rig.files.load();
    assert.equal(hooks.length, 0);
    assert.match(problems.join('\n'), /settings\.json is a named pipe/);
    assert.match(problems.join('\n'), /evil\.json leads outside the workspace/);
    assert.equal(await preToolUse(rig), undefined);
    assert.ok(!fs.existsSync(path.join(rig.root, 'RAN_FROM_OUTSIDE')));
  });
});
