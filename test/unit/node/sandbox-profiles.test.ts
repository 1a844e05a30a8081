/**
 * The sandbox's options as text: bubblewrap's arguments (run for real in test/adversarial/
 * sandbox.test.ts) and the macOS Seatbelt profile, which our Linux machines cannot run — so its
 * promises are checked here, clause by clause.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bubblewrapArgs } from '../../../src/node/sandbox/bubblewrap';
import type { ConfinementPlan } from '../../../src/node/sandbox/confinement';
import { OsSandbox } from '../../../src/node/sandbox/os-sandbox';
import { sbplString, seatbeltProfile } from '../../../src/node/sandbox/seatbelt';

function plan(overrides: Partial<ConfinementPlan> = {}): ConfinementPlan {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-profile-')));
  const root = path.join(base, 'my "odd" repo');
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, '.env.local'), 'X=1\n');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.netrc'), 'machine x\n');
  return { root, cwd: root, env: { PATH: '/usr/bin', HOME: home }, network: false, home, hidden: [], ...overrides };
}

describe('sandbox options as text', () => {
  it('bubblewrap: read-only system, writable workspace with protected paths read-only, secrets hidden, no network', () => {
    const p = plan();
    const args = bubblewrapArgs(p);
    const joined = args.join(' ');
    assert.match(joined, /--ro-bind \/ \//);
    assert.match(joined, /--unshare-net/);
    assert.match(joined, /--tmpfs \/tmp/);
    assert.ok(joined.includes(`--bind ${p.root} ${p.root}`));
    assert.ok(joined.includes(`--ro-bind ${p.root}/.git/hooks ${p.root}/.git/hooks`));
    assert.ok(joined.includes(`--ro-bind ${p.root}/.env.local ${p.root}/.env.local`));
    assert.ok(joined.includes(`--tmpfs ${p.home}/.ssh`));
    assert.ok(joined.includes(`--ro-bind /dev/null ${p.home}/.netrc`));
    assert.ok(joined.includes('--clearenv'));
    // The workspace bind comes after the read-only root, the protected binds after the workspace.
    assert.ok(joined.indexOf('--ro-bind / /') < joined.indexOf(`--bind ${p.root}`));
    assert.ok(joined.indexOf(`--bind ${p.root}`) < joined.indexOf(`--ro-bind ${p.root}/.git/hooks`));
    assert.doesNotMatch(bubblewrapArgs({ ...p, network: true }).join(' '), /--unshare-net/);
  });

  it('Seatbelt: writes only to the workspace and temporary folders, protected paths and secrets denied, last rule wins', () => {
    const p = plan();
    const profile = seatbeltProfile(p);
    const lines = profile.trim().split('\n');
    assert.equal(lines[0], '(version 1)');
    assert.equal(lines[1], '(allow default)');
    assert.equal(lines[2], '(deny file-write*)');
    assert.ok(lines[3]!.startsWith('(allow file-write*') && lines[3]!.includes(`(subpath ${sbplString(p.root!)})`));
    assert.ok(lines[3]!.includes('(subpath "/private/tmp")'));
    const protectedLine = lines.find((line) => line.startsWith('(deny file-write*') && line.includes('.openagent'))!;
    for (const name of [
      '.git/hooks',
      '.git/config',
      '.openagent',
      '.vscode',
      '.github/workflows',
      '.husky',
      '.githooks',
      '.devcontainer',
    ])
      assert.ok(protectedLine.includes(sbplString(path.join(p.root!, name))), name);
    assert.ok(protectedLine.includes(`(literal ${sbplString(path.join(p.root!, '.env.local'))})`));
    assert.ok(lines.indexOf(protectedLine) > 3, 'the protected-path denial comes after the workspace allow');
    assert.ok(profile.includes(`(deny file-read* (subpath ${sbplString(path.join(p.home, '.ssh'))})`));
    assert.ok(profile.includes('(deny network*)'));
    assert.ok(!seatbeltProfile({ ...p, network: true }).includes('(deny network*)'));
  });

  it('Seatbelt strings escape quotes and backslashes', () => {
    assert.equal(sbplString('/a "b"\\c'), '"/a \\"b\\"\\\\c"');
    assert.ok(seatbeltProfile(plan()).includes('my \\"odd\\" repo'));
  });

  it('macOS: sandbox-exec with the profile; no sandbox-exec or another OS: not confined, and says why', () => {
    const p = plan();
    const settings = { mode: () => 'auto' as const, network: () => false, passEnv: () => [], root: () => p.root };
    const mac = new OsSandbox(settings, { platform: 'darwin', home: p.home });
    const status = mac.status();
    if (fs.existsSync('/usr/bin/sandbox-exec')) {
      const launch = mac.launch('ls', {});
      assert.equal(launch.file, '/usr/bin/sandbox-exec');
      assert.equal(launch.args[0], '-p');
    } else assert.match(status.detail, /sandbox-exec is missing/);
    assert.match(new OsSandbox(settings, { platform: 'win32' }).status().detail, /no sandbox for win32 yet/);
  });
});
