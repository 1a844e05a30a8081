/**
 * What "Always This Session" may cover: a tool by name, or one plain command pattern — and
 * never a compound command that merely starts like an approved one.
 */
import assert from 'node:assert/strict';
import { sessionRuleKey as keyOf, sessionRuleLabel } from '../../../../src/core/policy/session-rules';
import { plainRisk } from '../../../fixtures/call-risk';

const COMMAND_TOOLS = new Set(['bash', 'background_run']);
/** The key for a call as the executor assesses it (commands come from the tools' traits). */
const sessionRuleKey = (toolName: string, input: { command?: string; [key: string]: unknown }) =>
  keyOf({ toolName, risk: plainRisk(COMMAND_TOOLS.has(toolName) ? input.command : undefined) });
const bash = (command: string) => sessionRuleKey('bash', { command });

describe('session rules', () => {
  it('remembers ordinary tools by name', () => {
    assert.equal(sessionRuleKey('write_file', { path: 'a.ts', content: 'x' }), 'write_file');
    assert.equal(sessionRuleKey('edit_file', { path: 'a.ts' }), 'edit_file');
    assert.equal(sessionRuleKey('mcp__github__create_issue', {}), 'mcp__github__create_issue');
  });

  it('remembers a plain command by program and subcommand', () => {
    assert.equal(bash('git status'), 'bash:git status');
    assert.equal(bash('git status --short'), 'bash:git status');
    assert.equal(bash('  git   status  \n'), 'bash:git status');
    assert.equal(bash('npm test'), 'bash:npm test');
    assert.equal(bash('ls'), 'bash:ls');
    assert.equal(bash('ls -la src'), 'bash:ls');
    assert.equal(bash('make'), 'bash:make');
    assert.equal(bash('cargo build --release'), 'bash:cargo build');
    assert.equal(bash('python -m pytest -q'), 'bash:python -m pytest');
    assert.equal(bash('npx prettier --check .'), 'bash:npx prettier');
    assert.equal(sessionRuleKey('background_run', { command: 'npm run dev' }), 'background_run:npm run dev');
  });

  it('keeps scripts of package managers apart', () => {
    assert.equal(bash('npm run build'), 'bash:npm run build');
    assert.notEqual(bash('npm run deploy'), bash('npm run build'));
    assert.equal(bash('pnpm exec vitest'), 'bash:pnpm exec vitest');
    assert.equal(bash('bash build.sh'), 'bash:bash build.sh');
  });

  it('an "Always" for `git status` does not cover anything more', () => {
    const approved = bash('git status');
    for (const command of [
      'git status; curl x | sh',
      'git status > x',
      'git status >> ~/.bashrc',
      'git status 2>&1',
      'git status && rm -rf /',
      'git status || rm -rf /',
      'git status | sh',
      'git status &',
      'git status & rm -rf /',
      'git $(rm -rf /)',
      'git status $(rm -rf /)',
      'git status `rm -rf /`',
      'git status <(rm -rf /)',
      'git status\nrm -rf /',
      'git status\rrm -rf /',
      'git status#; rm -rf /',
      `bash -c 'git status'`,
      `bash -c 'git status; rm -rf /'`,
      'env X=1 git status',
      'PAGER=evil git status',
      'sudo git status',
      'git -c alias.status=!rm status',
      'git --exec-path=/tmp status',
      'eval git status',
      `git status 'unclosed`,
      [...Array.from({ length: 59 }, () => 'git status'), 'rm -rf /'].join(' && '),
    ]) {
      const key = bash(command);
      assert.notEqual(key, approved, command);
      assert.equal(key, undefined, command);
    }
  });

  it('gives no key to variables, globs or quoting in the pattern words', () => {
    assert.equal(bash('$GIT status'), undefined);
    assert.equal(bash('git $SUB'), undefined);
    assert.equal(bash('git "status"'), 'bash:git status');
    assert.equal(bash('git st*'), undefined);
    assert.equal(bash('python -c "import os"'), undefined);
    assert.equal(bash('npm run "$SCRIPT"'), undefined);
  });

  it('gives no key to a call with reasons to ask (a protected path, a risky option)', () => {
    const risky = { ...plainRisk('git status'), reasons: ['`git -c` sets configuration that can run commands'] };
    assert.equal(keyOf({ toolName: 'bash', risk: risky }), undefined);
    assert.equal(keyOf({ toolName: 'write_file', risk: { ...plainRisk(), protectedPath: true } }), undefined);
  });

  it('describes a rule in words for the UI', () => {
    assert.equal(sessionRuleLabel('bash:git status'), '`git status` commands');
    assert.equal(sessionRuleLabel('bash:ls'), '`ls` commands');
    assert.equal(sessionRuleLabel('background_run:npm run dev'), '`npm run dev` commands (background_run)');
    assert.equal(sessionRuleLabel('write_file'), 'all write_file calls');
    assert.equal(sessionRuleLabel('mcp__github__create_issue'), 'all mcp__github__create_issue calls');
  });
});
