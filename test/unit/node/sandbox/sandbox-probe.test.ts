/**
 * Whether commands can be confined, asked of bubblewrap without blocking the process (issue 23:
 * the first prompt no longer waits on two bubblewrap starts), with the same answers as the
 * blocking probe. Stand-in bubblewrap scripts play an installed one, a refused one and one that
 * answers only once the test, running meanwhile, lets it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OsSandbox } from '../../../../src/node/sandbox/os-sandbox';
import { probeAsync, probeBlocking } from '../../../../src/node/sandbox/sandbox-probe';

let folder: string;

/** A stand-in `bwrap`: `version` is what `--version` runs, `trial` what any other call runs. */
function fakeBwrap(name: string, version: string, trial: string): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, `#!/bin/bash\nif [ "$1" = --version ]; then\n${version}\nfi\n${trial}\n`, { mode: 0o755 });
  return file;
}

const settings = {
  mode: () => 'auto' as const,
  network: () => false,
  passEnv: () => [],
  root: () => undefined,
};

describe('the sandbox probe', () => {
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-probe-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('lets the process go on while bubblewrap starts, then has the answer ready', async () => {
    const go = path.join(folder, 'go');
    // Answers only once `go` exists: a probe that blocked the process would never see it written.
    const bwrap = fakeBwrap(
      'bwrap',
      `for i in $(seq 1 300); do [ -e '${go}' ] && { echo 'bubblewrap 9.9.9'; exit 0; }; sleep 0.1; done; exit 1`,
      'exit 0',
    );
    const sandbox = new OsSandbox(settings, { bwrap, platform: 'linux' });
    const probing = sandbox.probeInBackground();
    assert.equal(sandbox.peek(), undefined, 'no answer yet');
    fs.writeFileSync(go, '');
    await probing;
    assert.deepEqual(sandbox.peek(), { mode: 'auto', confined: true, network: false, detail: 'bubblewrap 9.9.9' });
    assert.equal(sandbox.probeInBackground(), probing, 'probed once');
  });

  it('says why bubblewrap cannot start, word for word as the blocking probe', async () => {
    const bwrap = fakeBwrap(
      'bwrap',
      'echo bubblewrap 0.8.0; exit 0',
      'echo "bwrap: No permissions to create new namespace" >&2; echo "second line" >&2; exit 1',
    );
    const answer = await probeAsync('linux', bwrap);
    assert.deepEqual(answer, {
      ok: false,
      why: 'bubblewrap cannot start here (bwrap: No permissions to create new namespace)',
    });
    assert.deepEqual(probeBlocking('linux', bwrap), answer);
  });

  it('tells a missing or broken bubblewrap as not installed, as the blocking probe', async () => {
    for (const bwrap of [path.join(folder, 'nowhere', 'bwrap'), fakeBwrap('broken', 'exit 3', 'exit 0')]) {
      const answer = await probeAsync('linux', bwrap);
      assert.deepEqual(answer, { ok: false, why: 'bubblewrap (bwrap) is not installed' }, bwrap);
      assert.deepEqual(probeBlocking('linux', bwrap), answer, bwrap);
    }
  });

  it('starts nothing where the sandbox is off', async () => {
    const started = path.join(folder, 'started');
    const bwrap = fakeBwrap('bwrap', `touch '${started}'; echo bubblewrap 0.8.0; exit 0`, 'exit 0');
    const sandbox = new OsSandbox({ ...settings, mode: () => 'off' as const }, { bwrap, platform: 'linux' });
    await sandbox.probeInBackground();
    assert.equal(sandbox.peek()?.confined, false);
    assert.equal(fs.existsSync(started), false);
  });
});
