/**
 * The sandbox against a real bubblewrap (issue 15): a confined command cannot write outside the
 * workspace or into its protected paths, read the home folder's secrets, reach the host's
 * loopback or sockets, see host processes or a provider key — and a legitimate `npm test` in the
 * workspace still passes. `sandbox: required` without bubblewrap refuses, with a clear message.
 * Skipped (and said so) only where bubblewrap cannot run; CI installs it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxMode } from '../../src/core/policy/sandbox-modes';
import type { SandboxStatus } from '../../src/core/ports';
import { CallAssessor } from '../../src/core/policy/call-risk';
import { ChildProcessRunner } from '../../src/node/child-process-runner';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { toolsFor } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const TEST_BASE = path.join(os.homedir(), '.cache', 'openagent-sandbox-tests');

interface Rig {
  root: string;
  outside: string;
  home: string;
  sandbox: OsSandbox;
  run(
    command: string,
    options?: { unconfined?: boolean; timeoutMs?: number },
  ): Promise<{ output: string; exitCode: number | undefined }>;
}

function rig(options: { mode?: SandboxMode; network?: boolean; bwrap?: string; pass?: string[] } = {}): Rig {
  // Not under /tmp: the sandbox has a private /tmp, which would hide the folders anyway.
  fs.mkdirSync(TEST_BASE, { recursive: true });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(TEST_BASE, 'rig-')));
  const root = path.join(base, 'repo');
  const outside = path.join(base, 'outside');
  const home = path.join(base, 'home');
  for (const folder of [
    root,
    outside,
    path.join(home, '.ssh'),
    path.join(root, '.git/hooks'),
    path.join(root, '.openagent'),
  ])
    fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh/id_rsa'), 'PRIVATE KEY\n');
  fs.writeFileSync(path.join(home, '.netrc'), 'machine x password hunter2\n');
  fs.writeFileSync(path.join(root, '.git/config'), '[core]\n');
  fs.writeFileSync(path.join(root, '.openagent/agent.yaml'), 'tools: {}\n');
  fs.writeFileSync(path.join(root, '.env'), 'API_KEY=secret\n');
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'original\n');
  const sandbox = new OsSandbox(
    {
      mode: () => options.mode ?? 'auto',
      network: () => options.network ?? false,
      passEnv: () => options.pass ?? [],
      root: () => root,
    },
    {
      home,
      ...(options.bwrap ? { bwrap: options.bwrap } : {}),
      env: {
        PATH: `${home}/.local/bin:${process.env.PATH}`,
        HOME: home,
        ANTHROPIC_API_KEY: 'sk-ant-api03-leaked-leaked-leaked',
        OPENAI_API_KEY: 'sk-proj-leakedleakedleakedleaked',
        GITHUB_TOKEN: 'ghp_leakedleakedleakedleakedleaked',
        DATABASE_PASSWORD: 'hunter2',
        AWS_SECRET_ACCESS_KEY: 'abc/def',
        SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
        DB_PASS: 'leaked-db-pass',
        VSCE_PAT: 'leaked-vsce-pat',
        MONGODB_URI: 'mongodb://admin:leaked@db:27017',
        HTTPS_PROXY: 'http://bob:leaked@proxy:8080',
        GIT_CONFIG_VALUE_0: 'AUTHORIZATION: bearer leaked',
        BUNDLE_GITHUB__COM: 'x-access-token:leaked',
        CI_JOB_JWT: 'leaked.jwt',
        SOME_HARMLESS_NAME: 'ghp_leakedleakedleakedleakedleaked00',
        ConnectionStrings__Default: 'Server=db;Password=leaked',
        AzureWebJobsStorage: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=leaked==',
        REDIS_TLS: 'rediss://:leaked@cache:6380',
        JDBC_DATABASE_URL: 'jdbc:postgresql://db/app?user=u&password=leaked',
        KAFKA_SASL_JAAS_CONFIG: 'leaked',
        LDAP_BIND_PW: 'leaked',
        HARMLESS: 'visible',
      },
    },
  );
  const shell = new ChildProcessShell(undefined, sandbox);
  return {
    root,
    outside,
    home,
    sandbox,
    run: async (command, runOptions = {}) => {
      const result = await shell.run(command, {
        cwd: root,
        timeoutMs: runOptions.timeoutMs ?? 60_000,
        maxOutputChars: 20_000,
        ...(runOptions.unconfined ? { unconfined: true } : {}),
      });
      return { output: result.output, exitCode: result.exitCode };
    },
  };
}

/** How the agent assesses a bash call in the rig's workspace, with this sandbox status. */
function assessIn(r: Rig, command: string, status: SandboxStatus) {
  const tool = toolsFor(new NodeWorkspace(r.root)).get('bash')!;
  return new CallAssessor(
    () => new NodeWorkspace(r.root),
    () => status,
  ).assess(tool, { command }, 'c');
}

const available = new OsSandbox({
  mode: () => 'auto',
  network: () => false,
  passEnv: () => [],
  root: () => os.tmpdir(),
}).status().confined;

describe('adversarial: commands confined by a real bubblewrap', function () {
  this.timeout(TEST_TIMEOUT_MS);
  after(() => fs.rmSync(TEST_BASE, { recursive: true, force: true }));
  before(function () {
    if (!available) {
      console.warn('    (bubblewrap cannot run here: the sandbox tests are skipped; CI installs it)');
      this.skip();
    }
  });

  it('says it is confined, by which bubblewrap', () => {
    const status = rig().sandbox.status();
    assert.equal(status.confined, true);
    assert.match(status.detail, /bubblewrap \d/);
  });

  describe('cannot write outside the workspace', () => {
    for (const command of [
      'echo pwned > "$OUTSIDE/victim.txt"',
      'touch "$OUTSIDE/new"',
      'rm -f "$OUTSIDE/victim.txt"',
      'ln -s /etc "$OUTSIDE/link"',
      'cp /etc/hostname "$OUTSIDE/"',
      'mkdir "$OUTSIDE/dir"',
      'cd .. && touch outside/x',
      'echo x >> ~/.bashrc',
      'touch /usr/local/bin/pwned',
      'touch /etc/pwned',
    ]) {
      it(command, async () => {
        const r = rig();
        const before = fs.readdirSync(r.outside);
        const result = await r.run(`OUTSIDE=${r.outside}; ${command}`);
        // Writes to the throw-away home succeed, and vanish with it.
        if (!command.includes('~')) assert.match(result.output, /Read-only file system|Permission denied|No such file/);
        assert.deepEqual(fs.readdirSync(r.outside), before);
        assert.equal(fs.readFileSync(path.join(r.outside, 'victim.txt'), 'utf8'), 'original\n');
        assert.equal(fs.existsSync(path.join(r.home, '.bashrc')), false);
      });
    }
  });

  describe('cannot change the protected paths inside the workspace', () => {
    for (const command of [
      'echo "[core] fsmonitor = ./evil" >> .git/config',
      'echo evil > .git/hooks/pre-commit',
      'echo "tools: {allow: [\\"*\\"]}" > .openagent/agent.yaml',
      'rm .openagent/agent.yaml',
      'mv .git/config .git/config.bak',
      'echo API_KEY=x > .env',
    ]) {
      it(command, async () => {
        const r = rig();
        const snapshot = ['.git/config', '.openagent/agent.yaml', '.env'].map((file) =>
          fs.readFileSync(path.join(r.root, file), 'utf8'),
        );
        const result = await r.run(command);
        assert.notEqual(result.exitCode, 0, result.output);
        assert.deepEqual(
          ['.git/config', '.openagent/agent.yaml', '.env'].map((file) =>
            fs.readFileSync(path.join(r.root, file), 'utf8'),
          ),
          snapshot,
        );
        assert.equal(fs.existsSync(path.join(r.root, '.git/hooks/pre-commit')), false);
      });
    }

    it('a missing protected folder cannot be created, and no placeholder is left behind', async () => {
      const r = rig();
      const result = await r.run(
        'mkdir -p .vscode && echo "{}" > .vscode/settings.json; mkdir -p .husky/x; ls -d .github',
      );
      assert.match(result.output, /Read-only file system|Permission denied/);
      for (const name of ['.vscode', '.husky', '.github', '.devcontainer', '.githooks'])
        assert.equal(fs.existsSync(path.join(r.root, name)), false, name);
    });

    it('the protected entries cannot be renamed away and replaced', async () => {
      const r = rig();
      const result = await r.run(
        'mv .git .git2; mv .openagent .oa2; cp -a .git .gitc; echo ../.gitc > .git/commondir; echo x > .git/info/attributes',
      );
      assert.match(result.output, /busy|Read-only file system/);
      assert.equal(fs.existsSync(path.join(r.root, '.git2')), false);
      assert.equal(fs.existsSync(path.join(r.root, '.git/commondir')), false);
      assert.equal(fs.readFileSync(path.join(r.root, '.git/config'), 'utf8'), '[core]\n');
    });

    it('a protected entry that is a link is put back after the run, and the output says so', async () => {
      const r = rig();
      fs.mkdirSync(path.join(r.root, 'tools/husky'), { recursive: true });
      fs.symlinkSync('tools/husky', path.join(r.root, '.husky'));
      const result = await r.run('rm .husky && mkdir .husky && echo evil > .husky/pre-commit');
      assert.equal(fs.readlinkSync(path.join(r.root, '.husky')), 'tools/husky');
      assert.equal(fs.existsSync(path.join(r.root, 'tools/husky/pre-commit')), false);
      assert.match(result.output, /put back \.husky/);
    });
  });

  describe('has no way to raise its rights (as root too)', () => {
    it('no capability, no remount, no unmounting a protection', async () => {
      const r = rig();
      const result = await r.run(
        'grep CapEff /proc/self/status; mount -o remount,rw,bind / 2>&1; umount .git/hooks 2>&1; echo evil > .git/hooks/pre-commit',
      );
      assert.match(result.output, /CapEff:\s+0+\n/);
      assert.equal(fs.existsSync(path.join(r.root, '.git/hooks/pre-commit')), false);
    });
    it('cannot open a Unix socket, type into a terminal or reach the keyring (seccomp)', async () => {
      const r = rig();
      const server = net.createServer((socket) => socket.end('host socket\n'));
      const socketPath = path.join(r.root, 'dev.sock');
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      try {
        const result = await r.run(
          [
            `node -e "require('net').connect('${socketPath}').on('data', d => console.log(String(d))).on('error', e => console.log('unix: ' + e.code))"`,
            `python3 -c "import fcntl, termios
try:
  fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('tiocsti: allowed')
except OSError as e: print('tiocsti:', e.errno)"`,
          ].join('; '),
        );
        assert.doesNotMatch(result.output, /host socket/);
        assert.match(result.output, /unix: EPERM|unix: EACCES/);
        assert.match(result.output, /tiocsti: 1\b/, 'EPERM from the filter, not ENOTTY');
      } finally {
        server.close();
      }
    });
  });

  describe("cannot read the home folder's secrets", () => {
    for (const file of ['.gitconfig', '.config/git/credentials', '.claude/.credentials.json', '.1password/agent.sock'])
      it(`~/${file} is not there (the whole home is hidden)`, async () => {
        const r = rig();
        fs.mkdirSync(path.dirname(path.join(r.home, file)), { recursive: true });
        fs.writeFileSync(path.join(r.home, file), 'hunter2 PRIVATE KEY\n');
        const result = await r.run(`cat ~/${file}; ls -a ~`);
        assert.doesNotMatch(result.output, /PRIVATE KEY|hunter2/);
      });
    it('a workspace that holds the home folder is not confined, and says why', () => {
      const r = rig();
      const sandbox = new OsSandbox(
        { mode: () => 'auto', network: () => false, passEnv: () => [], root: () => path.dirname(r.home) },
        { home: r.home },
      );
      const status = sandbox.status();
      assert.equal(status.confined, false);
      assert.match(status.detail, /holds your home folder/);
    });

    for (const command of ['cat ~/.ssh/id_rsa', 'ls ~/.ssh', 'cat ~/.netrc', 'grep -r hunter2 ~ 2>/dev/null']) {
      it(command, async () => {
        const result = await rig().run(command);
        assert.doesNotMatch(result.output, /PRIVATE KEY|hunter2/);
      });
    }
  });

  describe('sees no secret in its environment', () => {
    for (const command of [
      'printenv',
      'env',
      'cat /proc/self/environ',
      'echo $ANTHROPIC_API_KEY $OPENAI_API_KEY $GITHUB_TOKEN $SSH_AUTH_SOCK',
    ]) {
      it(command, async () => {
        const result = await rig().run(command);
        assert.doesNotMatch(result.output, /leaked|hunter2|abc\/def|ssh-agent/);
      });
    }
    it('keeps ordinary variables, and passes a secret the policy names', async () => {
      assert.match((await rig().run('echo $HARMLESS')).output, /visible/);
      assert.match((await rig({ pass: ['GITHUB_TOKEN'] }).run('echo $GITHUB_TOKEN')).output, /ghp_leaked/);
    });
    it('an unconfined command (approved out) gets the same scrubbed environment', async () => {
      const result = await rig().run('printenv', { unconfined: true });
      assert.doesNotMatch(result.output, /leaked|hunter2/);
      assert.match(result.output, /HARMLESS=visible/);
    });
  });

  describe('cannot reach the host', () => {
    let server: net.Server;
    let port = 0;
    let connections = 0;
    const socketPath = path.join(os.tmpdir(), `openagent-host-${process.pid}.sock`);
    let unixServer: net.Server;
    before(async () => {
      server = net.createServer((socket) => {
        connections += 1;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
      unixServer = net.createServer((socket) => socket.end('host socket\n'));
      await new Promise<void>((resolve) => unixServer.listen(socketPath, resolve));
    });
    after(() => {
      server.close();
      unixServer.close();
    });

    it('127.0.0.1 on another port is not the host', async () => {
      const result = await rig().run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      assert.doesNotMatch(result.output, /hello from the host/);
      assert.equal(connections, 0);
    });
    it('a host Unix socket in /tmp is not there', async () => {
      const result = await rig().run(`test -S ${socketPath} && echo reachable || echo absent`);
      assert.match(result.output, /absent/);
    });
    it('host processes are not visible', async () => {
      const result = await rig().run('ls /proc | grep -c "^[0-9]"');
      assert.ok(Number(result.output.trim().split('\n')[0]) < 10, result.output);
    });
    it('with the network granted by policy, the host is reachable', async () => {
      const result = await rig({ network: true }).run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      assert.match(result.output, /hello from the host/);
    });
  });

  it('a legitimate npm test in the workspace still passes', async () => {
    const r = rig();
    fs.writeFileSync(
      path.join(r.root, 'package.json'),
      JSON.stringify({
        name: 'x',
        version: '1.0.0',
        scripts: { test: "node -e \"require('fs').writeFileSync('result.txt', 'ok')\"" },
      }),
    );
    const result = await r.run('npm test');
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(fs.readFileSync(path.join(r.root, 'result.txt'), 'utf8'), 'ok');
  });

  it('a background job runs confined too, and is stopped whole', async () => {
    const r = rig();
    const runner = new ChildProcessRunner(undefined, r.sandbox);
    const job = runner.start(`echo pwned > ${r.outside}/bg.txt; touch made.txt; sleep 600`, { cwd: r.root });
    const output: string[] = [];
    job.onOutput((chunk) => output.push(chunk));
    for (let i = 0; i < 600 && !fs.existsSync(path.join(r.root, 'made.txt')); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(fs.existsSync(path.join(r.outside, 'bg.txt')), false, output.join(''));
    const exited = new Promise((resolve) => job.onExit(resolve));
    job.kill();
    await exited;
  });

  it('a timeout stops everything the confined command started', async () => {
    const r = rig();
    const started = Date.now();
    const result = await r.run('setsid sleep 90 & sleep 90', { timeoutMs: 1_000 });
    assert.ok(Date.now() - started < 60_000, result.output);
  });

  describe('sandbox: required', () => {
    it('without bubblewrap, commands are refused with a clear message', async () => {
      const r = rig({ mode: 'required', bwrap: '/nonexistent/bwrap' });
      const status = r.sandbox.status();
      assert.equal(status.confined, false);
      assert.match(status.refusal ?? '', /sandbox: required.*bubblewrap/s);
      const result = await r.run('touch made.txt');
      assert.match(result.output, /Install bubblewrap/);
      assert.equal(fs.existsSync(path.join(r.root, 'made.txt')), false);
      const risk = await assessIn(r, 'ls', status);
      assert.match(risk.refusal ?? '', /Install bubblewrap/, 'refused before anyone is asked');
    });
    it('with bubblewrap, nothing runs outside it, even a command the user approved out', async () => {
      const r = rig({ mode: 'required' });
      const result = await r.run(`touch ${r.outside}/approved-out`, { unconfined: true });
      assert.notEqual(result.exitCode, 0, result.output);
      assert.equal(fs.existsSync(path.join(r.outside, 'approved-out')), false);
      const risk = await assessIn(r, 'curl https://example.com', r.sandbox.status());
      assert.match(risk.cautions.join(' '), /inside the sandbox even if you approve/);
    });
    it('auto without bubblewrap runs as before and says why', () => {
      const status = rig({ bwrap: '/nonexistent/bwrap' }).sandbox.status();
      assert.equal(status.confined, false);
      assert.equal(status.refusal, undefined);
      assert.match(status.detail, /not installed/);
    });
  });

  describe('third round: what a helper found, fixed at the root', () => {
    it('the terminal line holds no character of the command, and the sandbox starts with an empty environment', () => {
      const r = rig();
      const command = `echo \\'; touch ${r.outside}/escaped; # \ttab 'quote' $HOME`;
      const { line, afterRun } = r.sandbox.terminalLine(command, { cwd: r.root });
      try {
        assert.ok(!line.includes('echo') && !line.includes('escaped') && !line.includes('\t'), line);
        assert.match(
          line,
          /^env -i \S*bwrap --args 3 -- \/bin\/bash --norc --noprofile \/run\/openagent-command 3<'[^']+'( 4<'[^']+')? <\/dev\/null$/,
        );
        const output = spawnSync('/bin/bash', ['-c', line], { encoding: 'utf8' }).stdout;
        assert.match(output, /^\$ echo/);
        assert.equal(fs.existsSync(path.join(r.outside, 'escaped')), false);
        const environ = execFileSync(
          '/bin/bash',
          ['-c', r.sandbox.terminalLine('tr "\\0" "\\n" < /proc/1/environ; env', {}).line],
          {
            encoding: 'utf8',
            env: { ...process.env, LEAKED_IN_SHELL: 'leaked' },
          },
        );
        assert.doesNotMatch(environ, /LEAKED_IN_SHELL/);
      } finally {
        afterRun();
      }
    });
    it('cannot change terminal settings or open a datagram pair (seccomp)', async () => {
      const result = await rig().run(
        `python3 -c "import fcntl, termios, socket
try:
  fcntl.ioctl(1, termios.TCSETS, bytes(60)); print('tcsets: allowed')
except OSError as e: print('tcsets:', e.errno)
try:
  socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print('dgram: allowed')
except OSError as e: print('dgram:', e.errno)
socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM); print('stream: ok')"`,
      );
      assert.match(result.output, /tcsets: 1\b/);
      assert.match(result.output, /dgram: 1\b/);
      assert.match(result.output, /stream: ok/);
    });
    it('a placeholder outlives every run that relies on it', async () => {
      const r = rig();
      const runner = new ChildProcessRunner(undefined, r.sandbox);
      const job = runner.start('touch job-started; sleep 600', { cwd: r.root });
      for (let i = 0; i < 600 && !fs.existsSync(path.join(r.root, 'job-started')); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await r.run('true');
      const late = await r.run('mkdir -p .vscode/x && echo made');
      assert.doesNotMatch(late.output, /made/, 'the placeholder still protects .vscode while the job lives');
      const exited = new Promise((resolve) => job.onExit(resolve));
      job.kill();
      await exited;
      assert.equal(fs.existsSync(path.join(r.root, '.vscode')), false, 'removed once the last run ended');
    });
    it("home tool folders on PATH bind only themselves: ~/.local's secrets and nvm's npmrc stay hidden", async () => {
      const r = rig();
      const files = [
        '.local/share/keyrings/login.keyring',
        '.local/share/jupyter/runtime/token',
        '.nvm/versions/node/v20/etc/npmrc',
      ];
      for (const file of files) {
        fs.mkdirSync(path.dirname(path.join(r.home, file)), { recursive: true });
        fs.writeFileSync(path.join(r.home, file), 'hunter2\n');
      }
      fs.mkdirSync(path.join(r.home, '.local/bin'), { recursive: true });
      const result = await r.run(files.map((file) => `cat ~/${file}`).join('; '));
      assert.doesNotMatch(result.output, /hunter2/);
    });
    it('a .git file: the git folder it names is read-only too', async () => {
      const r = rig();
      fs.rmSync(path.join(r.root, '.git'), { recursive: true });
      fs.mkdirSync(path.join(r.root, 'gitdir/hooks'), { recursive: true });
      fs.writeFileSync(path.join(r.root, 'gitdir/config'), '[core]\n');
      fs.writeFileSync(path.join(r.root, '.git'), 'gitdir: gitdir\n');
      await r.run('echo "[core] fsmonitor = ./evil" >> gitdir/config; echo evil > gitdir/hooks/pre-commit');
      assert.equal(fs.readFileSync(path.join(r.root, 'gitdir/config'), 'utf8'), '[core]\n');
      assert.equal(fs.existsSync(path.join(r.root, 'gitdir/hooks/pre-commit')), false);
    });
    it('a linked protected entry: the folders leading to its target cannot be swapped', async () => {
      const r = rig();
      fs.mkdirSync(path.join(r.root, 'tools/husky'), { recursive: true });
      fs.symlinkSync('tools/husky', path.join(r.root, '.husky'));
      await r.run('mv tools tools2; mkdir -p tools/husky; echo evil > tools/husky/pre-commit');
      assert.equal(fs.existsSync(path.join(r.root, 'tools/husky/pre-commit')), false);
      assert.equal(fs.existsSync(path.join(r.root, 'tools2')), false);
    });
  });

  describe('git commands that write the repository ask where commands are confined', () => {
    for (const command of ['git add src', 'git commit -m x', 'git checkout -b x', 'git stash', 'git init']) {
      it(command, async () => {
        const r = rig();
        const risk = await assessIn(r, command, r.sandbox.status());
        assert.match(risk.reasons.join(' '), /writes the repository \(\.git\), which confined commands cannot/);
      });
    }
    it('and confined, they fail without touching .git', async () => {
      const r = rig();
      const result = await r.run('git init -q 2>&1; git add . 2>&1');
      assert.match(result.output, /Read-only file system|Permission denied|not a git repository/);
      assert.equal(fs.readFileSync(path.join(r.root, '.git/config'), 'utf8'), '[core]\n');
    });
  });

  describe('what a confined command needs from outside asks, and says why', () => {
    for (const command of [
      'curl https://example.com',
      'npm install left-pad',
      'git push origin main',
      'pip install requests',
      'npx cowsay hi',
    ]) {
      it(command, async () => {
        const r = rig();
        const risk = await assessIn(r, command, r.sandbox.status());
        assert.equal(risk.confined, true);
        assert.match(risk.reasons.join(' '), /reaches the network.*confined commands cannot|installs packages/);
        assert.match(risk.cautions.join(' '), /runs outside the sandbox/);
      });
    }
  });
});
