import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findRipgrep, vscodeRipgrepCandidates } from '../../../src/node/ripgrep-search';

describe("VS Code's ripgrep", () => {
  it('is looked for where VS Code 1.100 and where 1.139 keep it, packed or not, per platform', () => {
    assert.deepEqual(vscodeRipgrepCandidates('/app', 'linux', 'x64'), [
      '/app/node_modules/@vscode/ripgrep/bin/rg',
      '/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg',
      '/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg',
      '/app/node_modules.asar.unpacked/@vscode/ripgrep-universal/bin/linux-x64/rg',
    ]);
    assert.ok(vscodeRipgrepCandidates('/app', 'win32', 'arm64').every((candidate) => candidate.endsWith('rg.exe')));
    assert.ok(vscodeRipgrepCandidates('/app', 'win32', 'arm64').some((candidate) => candidate.includes('win32-arm64')));
  });

  it('finds the universal package of a newer VS Code, and falls back to rg on PATH without one', () => {
    const appRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-rg-'));
    try {
      assert.equal(findRipgrep(vscodeRipgrepCandidates(appRoot, 'linux', 'x64')), 'rg');
      const universal = path.join(appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', 'linux-x64');
      fs.mkdirSync(universal, { recursive: true });
      fs.writeFileSync(path.join(universal, 'rg'), '');
      assert.equal(findRipgrep(vscodeRipgrepCandidates(appRoot, 'linux', 'x64')), path.join(universal, 'rg'));
    } finally {
      fs.rmSync(appRoot, { recursive: true, force: true });
    }
  });
});
