/**
 * What `npm start` says when the machine lacks something: one line naming what is missing, why,
 * and the one command that installs it; stopping only for what code-server cannot do without.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkSystem, findOnPath } from '../../harness/system-check';

/** A PATH of one folder holding exactly these (empty, executable) programs. */
function pathWith(...programs: string[]): NodeJS.ProcessEnv {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-path-'));
  for (const program of programs) fs.writeFileSync(path.join(folder, program), '#!/bin/sh\n', { mode: 0o755 });
  return { PATH: folder };
}

describe('the system check of npm start', () => {
  it('says nothing when everything is there', () => {
    const env = pathWith('make', 'g++', 'python3', 'rg', 'apt-get');
    assert.deepEqual(checkSystem({ codeServerInstalled: false, ripgrepLinked: false, env, root: true }), {
      line: undefined,
      fatal: false,
    });
  });

  it('goes on without ripgrep, saying in one line what it is for and how to install it', () => {
    const env = pathWith('make', 'g++', 'python3', 'apt-get');
    const report = checkSystem({ codeServerInstalled: false, ripgrepLinked: false, env, root: false });
    assert.equal(report.fatal, false);
    assert.equal(
      report.line,
      "Missing rg (for search in the editor and the agent's search_files tool) — install with: sudo apt-get install ripgrep; starting without it.",
    );
  });

  it('stops before building when the compiler is missing, with one command for everything missing', () => {
    const env = pathWith('make', 'python3', 'apt-get');
    const report = checkSystem({ codeServerInstalled: false, ripgrepLinked: false, env, root: true });
    assert.equal(report.fatal, true);
    assert.equal(report.line?.split('\n').length, 1);
    assert.match(report.line ?? '', /^Missing g\+\+ \(needed once, to build code-server's native modules\), rg \(/);
    assert.match(report.line ?? '', / — install with: apt-get install g\+\+ ripgrep; then start again\.$/);
  });

  it('needs no compiler once code-server is installed, nor rg once it is linked', () => {
    const env = pathWith('apt-get');
    assert.equal(checkSystem({ codeServerInstalled: true, ripgrepLinked: true, env }).line, undefined);
  });

  it('names the package manager the machine has', () => {
    const env = pathWith('dnf');
    const report = checkSystem({ codeServerInstalled: false, ripgrepLinked: true, env, root: false });
    assert.match(report.line ?? '', /install with: sudo dnf install make gcc-c\+\+ python3;/);
  });

  it('finds a program on PATH only where it is executable', () => {
    const env = pathWith('rg');
    assert.equal(findOnPath('rg', env), path.join(env.PATH!, 'rg'));
    fs.chmodSync(path.join(env.PATH!, 'rg'), 0o644);
    assert.equal(findOnPath('rg', env), undefined);
  });
});
