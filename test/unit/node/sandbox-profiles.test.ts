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
  it('bubblewrap: no capabilities, read-only system, throw-away home, protected entries read-only or placeheld, no network', () => {
    const p = plan({ placeholder: '/placeholder', emptyFile: '/empty-file' });
    fs.mkdirSync(path.join(p.home, '.cargo/bin'), { recursive: true });
    fs.writeFileSync(path.join(p.home, '.cargo/credentials.toml'), 'token\n');
    const { args, placeholders } = bubblewrapArgs(p, 3);
    const joined = args.join(' ');
    for (const expected of [
      '--unshare-user --cap-drop ALL',
      '--unshare-net',
      '--ro-bind / /',
      '--tmpfs /tmp',
      `--tmpfs ${p.home}`,
      `--ro-bind ${p.home}/.cargo ${p.home}/.cargo`,
      `--ro-bind /empty-file ${p.home}/.cargo/credentials.toml`,
      `--bind ${p.root} ${p.root}`,
      `--ro-bind ${p.root}/.git ${p.root}/.git`,
      `--ro-bind ${p.root}/.env.local ${p.root}/.env.local`,
      `--ro-bind /placeholder ${p.root}/.vscode`,
      '--seccomp 3',
      '--clearenv',
    ])
      assert.ok(joined.includes(expected), expected);
    assert.ok(placeholders.includes(path.join(p.root!, '.openagent')));
    // Later mounts cover earlier ones: the order is the design.
    const at = (text: string) => joined.indexOf(text);
    assert.ok(at('--ro-bind / /') < at(`--tmpfs ${p.home}`));
    assert.ok(at(`--tmpfs ${p.home}`) < at(`--ro-bind ${p.home}/.cargo `));
    assert.ok(at(`--ro-bind ${p.home}/.cargo `) < at(`--ro-bind /empty-file ${p.home}/.cargo/credentials.toml`));
    assert.ok(at(`--bind ${p.root}`) < at(`--ro-bind ${p.root}/.git`));
    assert.doesNotMatch(bubblewrapArgs({ ...p, network: true }).args.join(' '), /--unshare-net/);
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
      '.git',
      '.github',
      '.openagent',
      '.vscode',
      '.husky',
      '.githooks',
      '.devcontainer',
      '.env',
      '.env.local',
    ])
      assert.ok(protectedLine.includes(`(subpath ${sbplString(path.join(p.root!, name))})`), name);
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
