/**
 * The shared hook files' dialects read into one list (Claude Code settings, VS Code's and the
 * Copilot CLI's `.github/hooks`), tool names and inputs mapped both ways, and hook outcomes
 * read as the format says (allow never blocks nor allows; exit codes other than 0 and 2 only
 * report).
 */
import assert from 'node:assert/strict';
import { parseHookFile } from '../../../../src/core/hooks/shared-hook-config';
import { readOutcome } from '../../../../src/core/hooks/shared-hook-outcome';
import { callForHook, inputFromHook } from '../../../../src/core/hooks/shared-hook-tools';

describe('shared hook format (issue 35, item 5)', () => {
  it('reads Claude Code settings, VS Code and Copilot CLI hook files alike', () => {
    const claude = parseHookFile(
      '.claude/settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a', timeout: 5 }] }],
          Notification: [],
        },
      }),
      'workspace',
    );
    assert.deepEqual(
      claude.hooks.map((hook) => [hook.event, hook.matcher, hook.command, hook.timeoutSeconds, hook.dialect]),
      [['PreToolUse', 'Bash', 'a', 5, 'claude']],
    );
    assert.match(claude.problems.join('\n'), /Notification hooks are not supported/);
    const vscode = parseHookFile(
      '.github/hooks/a.json',
      JSON.stringify({
        hooks: {
          PostToolUse: [
            { type: 'command', command: 'b', linux: 'b-linux', osx: 'b-mac', cwd: 'tools', env: { A: '1' } },
          ],
        },
      }),
      'workspace',
      'linux',
    );
    assert.deepEqual(
      vscode.hooks.map((hook) => [hook.event, hook.command, hook.cwd, hook.env]),
      [['PostToolUse', 'b-linux', 'tools', { A: '1' }]],
    );
    const copilot = parseHookFile(
      '.github/hooks/b.json',
      JSON.stringify({
        version: 1,
        hooks: {
          preToolUse: [{ type: 'command', bash: 'c', powershell: 'c.ps1', timeoutSec: 9 }],
          userPromptSubmitted: [{ type: 'command', bash: 'd' }],
          agentStop: [{ type: 'command', bash: 'e' }],
          sessionStart: [{ type: 'prompt', prompt: '/x' }],
          errorOccurred: [{ type: 'command', bash: 'f' }],
        },
      }),
      'workspace',
    );
    assert.deepEqual(
      copilot.hooks.map((hook) => [hook.event, hook.command, hook.dialect]),
      [
        ['PreToolUse', 'c', 'copilot'],
        ['UserPromptSubmit', 'd', 'copilot'],
        ['Stop', 'e', 'copilot'],
      ],
    );
    assert.match(copilot.problems.join('\n'), /type "prompt" are not supported/);
    assert.match(copilot.problems.join('\n'), /errorOccurred hooks are not supported/);
    assert.match(parseHookFile('x.json', '{', 'workspace').problems[0]!, /not valid JSON/);
  });

  it('maps our tools to the names and inputs hooks expect, and updatedInput back', () => {
    const root = '/work/repo';
    assert.deepEqual(callForHook('bash', { command: 'ls', timeoutSeconds: 5 }, root), {
      name: 'Bash',
      input: { command: 'ls', timeout: 5000 },
    });
    assert.deepEqual(callForHook('edit_file', { path: 'a.ts', edits: [{ oldText: 'x', newText: 'y' }] }, root), {
      name: 'Edit',
      input: { file_path: '/work/repo/a.ts', old_string: 'x', new_string: 'y' },
    });
    assert.equal(
      callForHook(
        'edit_file',
        {
          path: 'a.ts',
          edits: [
            { oldText: 'x', newText: 'y' },
            { oldText: 'p', newText: 'q' },
          ],
        },
        root,
      ).name,
      'MultiEdit',
    );
    assert.deepEqual(
      inputFromHook(
        'write_file',
        { file_path: '/work/repo/a.ts', content: 'x' },
        { file_path: '/work/repo/b.ts' },
        root,
      ),
      {
        path: 'b.ts',
        content: 'x',
      },
    );
    // Outside the workspace a path stays absolute (and the workspace's path check refuses it).
    assert.deepEqual(inputFromHook('read_file', {}, { file_path: '/etc/passwd' }, root), { path: '/etc/passwd' });
    assert.deepEqual(callForHook('mcp__github__create_issue', { title: 't' }, root), {
      name: 'mcp__github__create_issue',
      input: { title: 't' },
    });
  });

  it('reads outcomes: exit 2 blocks, deny blocks, ask asks, allow adds nothing, other exits report', () => {
    const run = (exitCode: number | undefined, stdout = '', stderr = '') => ({
      exitCode,
      stdout,
      stderr,
      timedOut: false,
    });
    assert.deepEqual(readOutcome('PreToolUse', run(2, '', 'no\n'), 60), { block: 'no' });
    assert.deepEqual(readOutcome('PreToolUse', run(1, '', 'oops'), 60), { notice: 'exited with code 1: oops' });
    const json = (specific: object) =>
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...specific } });
    assert.deepEqual(readOutcome('PreToolUse', run(0, json({ permissionDecision: 'allow' })), 60), {});
    assert.deepEqual(
      readOutcome('PreToolUse', run(0, json({ permissionDecision: 'deny', permissionDecisionReason: 'r' })), 60),
      { block: 'r' },
    );
    assert.deepEqual(
      readOutcome('PreToolUse', run(0, json({ permissionDecision: 'ask' })), 60).ask !== undefined,
      true,
    );
    assert.deepEqual(
      readOutcome(
        'PreToolUse',
        run(0, JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: 'cli' })),
        60,
      ),
      { block: 'cli' },
    );
    assert.deepEqual(readOutcome('Stop', run(0, JSON.stringify({ decision: 'block', reason: 'go on' })), 60), {
      block: 'go on',
    });
    assert.deepEqual(readOutcome('UserPromptSubmit', run(0, 'plain context'), 60), { context: 'plain context' });
    assert.deepEqual(readOutcome('PreToolUse', run(0, 'plain text'), 60), {});
    assert.deepEqual(readOutcome('PreToolUse', { ...run(undefined), timedOut: true }, 7), {
      notice: 'did not finish within 7 s and was stopped',
    });
  });
});
