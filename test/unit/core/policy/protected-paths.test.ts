import assert from 'node:assert/strict';
import { isProtectedPath, isSecretPlace, pathOfInput } from '../../../../src/core/policy/protected-paths';

describe('protected paths', () => {
  it('protects version control, editor and agent config, workflows, env and lock files, and anything outside', () => {
    for (const path of [
      '.git/config',
      '.vscode/settings.json',
      '.openagent/agent.yaml',
      '.github/workflows/ci.yml',
      '.github/CODEOWNERS',
      '.husky/pre-commit',
      '.githooks/pre-push',
      '.devcontainer/devcontainer.json',
      'package.json',
      '.npmrc',
      '.env',
      '.env.local',
      'app/.env.production',
      'package-lock.json',
      'sub/yarn.lock',
      'Cargo.lock',
      '../outside.txt',
      '/etc/hosts',
    ]) {
      assert.ok(isProtectedPath(path), path);
    }
  });

  it('leaves ordinary files alone', () => {
    for (const path of [
      'src/app.ts',
      'README.md',
      'environment.ts',
      'docs/.gitkeep-not-git',
      'github/ISSUE_TEMPLATE.md',
      'lock.ts',
    ]) {
      assert.ok(!isProtectedPath(path), path);
    }
  });

  it('finds the path a tool call is about', () => {
    assert.equal(pathOfInput({ path: 'a.ts', content: 'x' }), 'a.ts');
    assert.equal(pathOfInput({ command: 'ls' }), undefined);
    assert.equal(pathOfInput(null), undefined);
  });

  it('names secret files and the folders that hold only secrets, however the path is written', () => {
    for (const place of [
      '.env',
      './.env',
      'sub/../.env',
      '.ENV.local',
      '.ssh',
      '.ssh/',
      'home/.aws',
      'a/.aws/config',
      'k/id_ed25519',
    ])
      assert.ok(isSecretPlace(place), place);
    for (const place of ['.env.example', 'src', 'keys', '.', '', 'sshd', 'aws/config'])
      assert.ok(!isSecretPlace(place), place);
  });
});
