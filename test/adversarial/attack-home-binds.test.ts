/**
 * Issue 32, item 4, second pass (an attacker's inputs), against the real bubblewrap through the
 * product's ChildProcessShell and OsSandbox with a fake home: PATH entries that resolve into the
 * home or a secret (`..` through a tool folder, `/proc/self/cwd/..`, chains of links, `/`,
 * empty entries), a `bin`'s `lib` sibling that is a link elsewhere, a secret file hard-linked
 * into a tool folder under an innocent name, credential files named like nothing listed but
 * saying what they hold (`token.txt`, `github_token`), npm's builtin rc inside `lib`, a tool
 * folder of 30,000 files next to a small one (the small one's credentials are still found), and
 * the account's home when HOME names another folder. Harmless markers only; skipped (and said
 * so) only where bubblewrap cannot run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { otherViews } from '../../src/node/sandbox/home-views';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../harness/patience';

// Not under /tmp: the sandbox has a private /tmp, which would hide the folders anyway.
const BASE = path.join(os.homedir(), '.cache', 'openagent-attack-home-tests');
const SECRET = 'OPENAGENT-MARKER-HOME-SECRET';

interface Rig {
  base: string;
  root: string;
  home: string;
  run(command: string): Promise<string>;
}

function write(file: string, text = `${SECRET}\n`): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A workspace and a home holding the usual secrets; `prepare` adds the attack's layout. */
function rig(
  pathOf: (home: string) => string,
  prepare: (home: string) => void = () => undefined,
  options: { accountHome?: (base: string) => string; homeThroughLink?: boolean } = {},
): Rig {
  fs.mkdirSync(BASE, { recursive: true });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(BASE, 'rig-')));
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  fs.mkdirSync(root, { recursive: true });
  write(path.join(home, '.ssh/id_ed25519'));
  write(path.join(home, '.netrc'), `machine x password ${SECRET}\n`);
  write(path.join(home, 'notes/plans.md'));
  prepare(home);
  // HOME may name the home through a link (`/home/me -> /data/me`).
  const named = options.homeThroughLink ? path.join(base, 'home-link') : home;
  if (options.homeThroughLink) fs.symlinkSync(home, named);
  const sandbox = new OsSandbox(
    { mode: () => 'auto', network: () => false, passEnv: () => [], root: () => root },
    {
      home: named,
      ...(options.accountHome ? { accountHome: options.accountHome(base) } : {}),
      env: { PATH: pathOf(named), HOME: named },
    },
  );
  const shell = new ChildProcessShell(undefined, sandbox);
  return {
    base,
    root,
    home,
    run: async (command) =>
      (await shell.run(command, { cwd: root, timeoutMs: PATIENCE_MS, maxOutputChars: 50_000 })).output,
  };
}

/**
 * Every way a command could look: the home, each PATH entry as given (the system's own folders
 * and `/` apart: the home is looked at through `~` and the rig's folder), through /proc. It
 * says when it is done, so a look cut short by the timeout cannot pass for one that found nothing.
 */
const LOOK = [
  `for entry in $(echo "$PATH" | tr ':' ' '); do case "$entry" in /|/usr/bin|/bin) ;; *) grep -rs ${SECRET} "$entry" ;; esac; done 2>/dev/null | head -20`,
  `grep -rs ${SECRET} ~ "$(dirname ~)" /proc/self/cwd/.. 2>/dev/null | head -20`,
  'cat ~/.ssh/id_ed25519 ~/.netrc ~/notes/plans.md 2>&1',
  'echo LOOKED-EVERYWHERE',
].join('; ');

function assertHidden(output: string): void {
  assert.match(output, /LOOKED-EVERYWHERE/, `the look finished: ${output}`);
  assert.doesNotMatch(output, new RegExp(SECRET), output);
}

const available = new OsSandbox({
  mode: () => 'auto',
  network: () => false,
  passEnv: () => [],
  root: () => os.tmpdir(),
}).status().confined;

describe('attack: tool folders bound back into the sandbox, second pass (issue 32, item 4)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  before(function () {
    if (!available) {
      console.log('      (skipped: bubblewrap cannot run here)');
      this.skip();
    }
  });
  after(() => fs.rmSync(BASE, { recursive: true, force: true }));

  const paths: Array<[string, (home: string) => string, (home: string) => void]> = [
    [
      'dot-dot through a tool folder into .ssh',
      (home) => `${home}/.cargo/bin/../../.ssh:/usr/bin:/bin`,
      (home) => fs.mkdirSync(`${home}/.cargo/bin`, { recursive: true }),
    ],
    ['/proc/self/cwd/..', () => '/proc/self/cwd/..:/usr/bin:/bin', () => undefined],
    ['the root folder', () => '/:/usr/bin:/bin', () => undefined],
    ['empty and relative entries', () => '::.:bin:../home:/usr/bin::/bin:', () => undefined],
    [
      'a chain of three links to the home',
      (home) => `${home}/a:/usr/bin:/bin`,
      (home) => {
        fs.symlinkSync(`${home}/b`, `${home}/a`);
        fs.symlinkSync(`${home}/c`, `${home}/b`);
        fs.symlinkSync(home, `${home}/c`);
      },
    ],
    [
      "a bin whose lib sibling is a link to the home's notes",
      (home) => `${home}/opt/bin:/usr/bin:/bin`,
      (home) => {
        fs.mkdirSync(`${home}/opt/bin`, { recursive: true });
        fs.symlinkSync(`${home}/notes`, `${home}/opt/lib`);
      },
    ],
    [
      'a bin whose lib sibling is a link to the home',
      (home) => `${home}/opt/bin:/usr/bin:/bin`,
      (home) => {
        fs.mkdirSync(`${home}/opt/bin`, { recursive: true });
        fs.symlinkSync(home, `${home}/opt/lib`);
      },
    ],
    [
      'a tool folder holding links to .ssh and to a secret file',
      (home) => `${home}/.cargo/bin:/usr/bin:/bin`,
      (home) => {
        fs.mkdirSync(`${home}/.cargo/bin`, { recursive: true });
        fs.symlinkSync(`${home}/.ssh`, `${home}/.cargo/bin/keys`);
        fs.symlinkSync(`${home}/.netrc`, `${home}/.cargo/config-data`);
      },
    ],
    [
      'a secret file hard-linked into a tool folder under an innocent name',
      (home) => `${home}/.cargo/bin:/usr/bin:/bin`,
      (home) => {
        fs.mkdirSync(`${home}/.cargo/bin`, { recursive: true });
        fs.linkSync(`${home}/.ssh/id_ed25519`, `${home}/.cargo/bin/tool-data`);
        fs.linkSync(`${home}/.netrc`, `${home}/.cargo/registry-cache.db`);
      },
    ],
  ];
  for (const [what, pathOf, prepare] of paths) {
    it(what, async () => {
      assertHidden(await rig(pathOf, prepare).run(LOOK));
    });
  }

  describe('credential files named for what they hold, in bound tool folders', () => {
    const files = [
      '.npm-global/lib/node_modules/npm/npmrc',
      '.npm-global/lib/node_modules/npm/.npmrc',
      '.npm-global/token.txt',
      '.npm-global/etc/github_token',
      '.cargo/.credentials.json',
      '.cargo/bin/../api-key.json',
      '.local/share/mise/installs/gh/2.40.0/hosts.yaml',
      '.pyenv/versions/3.12.0/auth.toml',
      '.sdkman/candidates/x/service-account.json',
      '.volta/secrets/password.txt',
    ];
    for (const file of files) {
      it(`~/${file}`, async () => {
        const r = rig(
          (home) => `${home}/.npm-global/bin:${home}/.volta/bin:/usr/bin:/bin`,
          (home) => {
            write(path.join(home, file));
            write(path.join(home, '.npm-global/bin/hello'), '#!/bin/sh\necho tool-runs\n');
            fs.chmodSync(path.join(home, '.npm-global/bin/hello'), 0o755);
          },
        );
        const output = await r.run(`cat ~/${file}; hello; ${LOOK}`);
        assertHidden(output);
        assert.match(output, /tool-runs/, 'the tool folder itself is still there');
      });
    }
  });

  it("a program named for credentials is a program: it still runs (cargo's credential helpers)", async () => {
    const r = rig(
      (home) => `${home}/.cargo/bin:/usr/bin:/bin`,
      (home) => {
        write(path.join(home, '.cargo/bin/cargo-credential-example'), '#!/bin/sh\necho helper-runs\n');
        fs.chmodSync(path.join(home, '.cargo/bin/cargo-credential-example'), 0o755);
      },
    );
    assert.match(await r.run('cargo-credential-example'), /helper-runs/);
  });

  it("a tool folder of 30,000 files does not use up a small one's share of the scan", async () => {
    const r = rig(
      (home) => `${home}/aaa-huge/bin:${home}/.volta/bin:/usr/bin:/bin`,
      (home) => {
        const huge = path.join(home, 'aaa-huge/bin');
        fs.mkdirSync(huge, { recursive: true });
        for (let at = 0; at < 30_000; at++) fs.writeFileSync(path.join(huge, `tool-${at}`), '');
        write(path.join(home, '.volta/tools/image/node/20.1.0/etc/npmrc'), `//r/:_authToken=${SECRET}\n`);
        fs.mkdirSync(path.join(home, '.volta/bin'), { recursive: true });
      },
    );
    const output = await r.run(`cat ~/.volta/tools/image/node/20.1.0/etc/npmrc; ls ~/aaa-huge/bin | wc -l`);
    assert.doesNotMatch(output, new RegExp(SECRET), output);
    assert.match(output, /^30000$/m, 'the huge folder is bound whole');
  });

  it('HOME names the home through a link, and PATH names tool folders through it, twice and with a slash', async () => {
    const r = rig(
      (home) => `${home}/.cargo/bin:${home}/.cargo/bin/:${home}/:/usr/bin:/bin`,
      (home) => {
        write(path.join(home, '.cargo/credentials.toml'));
        write(path.join(home, '.cargo/bin/hello'), '#!/bin/sh\necho tool-runs\n');
        fs.chmodSync(path.join(home, '.cargo/bin/hello'), 0o755);
      },
      { homeThroughLink: true },
    );
    const output = await r.run(`cat ~/.cargo/credentials.toml ${r.home}/.cargo/credentials.toml; hello; ${LOOK}`);
    assertHidden(output);
    assert.match(output, /tool-runs/);
  });

  it('a bind mount of the home (or of what holds it) elsewhere shows nothing of it', async function () {
    const r = rig(() => '/usr/bin:/bin');
    const views = [path.join(r.base, 'home-view'), path.join(r.base, 'base-view')];
    for (const view of views) fs.mkdirSync(view);
    const mounted: string[] = [];
    try {
      for (const [source, view] of [
        [r.home, views[0]!],
        [r.base, views[1]!],
      ] as const) {
        if (spawnSync('mount', ['--bind', source, view]).status !== 0) break;
        mounted.push(view);
      }
      if (mounted.length < 2) {
        console.log('      (skipped: this machine does not let the tests bind-mount)');
        this.skip();
      }
      const output = await r.run(
        `cat ${views[0]}/.ssh/id_ed25519 ${views[0]}/.netrc ${views[1]}/home/.ssh/id_ed25519 2>&1; grep -rs ${SECRET} ${views[0]} ${views[1]}/home; ${LOOK}`,
      );
      assertHidden(output);
    } finally {
      for (const view of mounted.reverse()) spawnSync('umount', [view]);
    }
  });

  it('the mount table is read for every view of the home: bind mounts, the same disk twice, escaped names', () => {
    const table = [
      '27 1 8:1 / / rw - ext4 /dev/sda1 rw',
      '40 27 8:1 /home/me /mnt/me\\040copy rw - ext4 /dev/sda1 rw',
      '41 27 8:1 / /media/disk rw - ext4 /dev/sda1 rw',
      '42 27 8:1 /home /srv/homes rw - ext4 /dev/sda1 rw',
      '43 27 8:1 /home/me/projects /work rw - ext4 /dev/sda1 rw',
      '44 27 8:1 /var /var rw - ext4 /dev/sda1 rw',
      '45 27 0:50 / /home/me/.cache rw - tmpfs tmpfs rw',
      '46 27 8:2 / /data rw - ext4 /dev/sda2 rw',
    ].join('\n');
    assert.deepEqual(otherViews(['/home/me'], table).sort(), ['/media/disk/home/me', '/mnt/me copy', '/srv/homes/me']);
    // The home on its own disk, shown twice.
    const own = [
      '27 1 8:1 / / rw - ext4 a rw',
      '30 27 8:3 / /home rw - ext4 b rw',
      '31 27 8:3 /me /backup/me rw - ext4 b rw',
    ];
    assert.deepEqual(otherViews(['/home/me'], own.join('\n')), ['/backup/me']);
    assert.deepEqual(otherViews(['/home/me'], ''), []);
  });

  it("HOME names another folder: the account's own home is hidden too", async () => {
    const r = rig(
      (home) => `${home}/.cargo/bin:/usr/bin:/bin`,
      () => undefined,
      {
        accountHome: (base) => {
          const account = path.join(base, 'account-home');
          write(path.join(account, '.ssh/id_rsa'));
          write(path.join(account, '.config/gh/hosts.yml'), `oauth_token: ${SECRET}\n`);
          return account;
        },
      },
    );
    const output = await r.run(
      `cat ${r.base}/account-home/.ssh/id_rsa ${r.base}/account-home/.config/gh/hosts.yml 2>&1; grep -rs ${SECRET} ${r.base}`,
    );
    assert.doesNotMatch(output, new RegExp(SECRET), output);
  });
});
