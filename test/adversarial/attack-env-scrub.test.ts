/**
 * Issue 32, item 2, second pass (an attacker's inputs): credentials in shapes the first pass did
 * not try — JSON and YAML/TOML/ini values, base64 of `user:pass`, option flags, a login before a
 * host without a scheme, a query after the first `key:`, a webhook's key in its path, quotes,
 * spaces, compatibility and invisible characters, a shell function — are removed by what they
 * are; start-up files that would export keys again (`BASH_ENV`) are dropped; and every way a
 * command starts (the child-process shell, background jobs, the terminal's line with or without
 * a sandbox) gets that environment. MCP stdio servers get the user's configured variables, not
 * the host's. The false-positive side is measured: a developer's toolchain variables survive.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isSecretVariable, scrubEnvironment } from '../../src/core/policy/command-env';
import { ChildProcessRunner } from '../../src/node/child-process-runner';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { McpConnections } from '../../src/node/mcp/mcp-connections';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../harness/patience';

const MARK = 'attackmarker';

/** Credentials under a name that says nothing; each carries the marker. */
const HOSTILE: Record<string, string> = {
  json: `{"token":"${MARK}0123456789"}`,
  'json nested docker auths': `{"auths":{"registry.example":{"auth":"${Buffer.from(`u:${MARK}`).toString('base64')}"}}}`,
  'json array with apiKey': `[{"name":"x","apiKey":"${MARK}12"}]`,
  'json number password': `{"pin": 1, "password": 987654321, "note": "${MARK}"}`,
  'yaml flow': `{user: bob, password: ${MARK}hunter2}`,
  'yaml block': `registry: r\npassword: ${MARK}hunter2\n`,
  toml: `token = "${MARK}abcdef"`,
  ini: `[auth]\nusername=bob\npassword=${MARK}`,
  'base64 of user:pass': Buffer.from(`admin:${MARK}`).toString('base64'),
  'base64url of user:pass': Buffer.from(`admin:${MARK}?>`).toString('base64url'),
  'base64 of JSON with a token': Buffer.from(`{"token":"${MARK}abcdef"}`).toString('base64'),
  'curl -u': `-u admin:${MARK}`,
  'curl --user=': `--user=admin:${MARK}`,
  'an option --password=': `--password=${MARK} --verbose`,
  'an option --api-key=': `--api-key=${MARK}12`,
  'a java property': `-Djavax.net.ssl.trustStorePassword=${MARK}`,
  'login before a proxy, no scheme': `bob:${MARK}@proxy.corp:3128`,
  'login after //, no scheme': `//bob:${MARK}@registry.example.com/`,
  'a signature after the first key of a URL': `https://storage.example.com/x?X-Goog-Signature=${MARK}`,
  "a webhook's key in its path": `https://hooks.example.com/services/T04AB12CD/B05EF34GH/eR5KeR0xfU9LrR8M3pCq${MARK}`,
  'a quoted token': `"aZ3kP9qL2mX7vB4nR8tW${MARK}1yC6"`,
  'a token between spaces': `   aZ3kP9qL2mX7vB4nR8tW${MARK}1yC6   `,
  'a fullwidth Bearer': `Ｂearer ${MARK}abcdefgh`,
  'a zero-width space in Bearer': `Bear\u200ber ${MARK}abcdefgh`,
  'a shell function with a header': `() {  curl -H "Authorization: Bearer ${MARK}abcd" https://x;\n}`,
  'a newline and an export': `harmless\nexport GITHUB_TOKEN=ghp_${MARK}abcdefghijklmnopqrstuv`,
  'upper-case scheme and login': `HTTP://USER:${MARK.toUpperCase()}@PROXY:3128`,
  'percent-encoded login': `http://%75ser:${MARK}@proxy:3128`,
};

/** Names that are secrets whatever their value (short values a value test cannot judge). */
const SECRET_NAMES = [
  'SSHPASS',
  'SUDO_ASKPASS',
  'BUNDLE_GEMS__CONTRIBSYS__COM',
  'npm_config__auth',
  'npm_config_//registry.example/:_authToken',
  'NPM_CONFIG_USERCONFIG',
  'GITHUBTOKEN',
  'DBPASSWORD',
  'AWS_ACCESS_KEY_ID',
  'DOCKER_HOST',
  'GITHUB_ENV',
  'KUBECONFIG',
  'TF_VAR_db_password',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_VALUE_0',
  'BW_SESSION',
  'OP_SESSION_my',
];

/** A developer's toolchain: variables commands need, none a secret. */
const TOOLCHAIN: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Ada Lovelace',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Lovelace',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  TOKENIZERS_PARALLELISM: 'false',
  XDG_SESSION_TYPE: 'wayland',
  DESKTOP_SESSION: 'ubuntu',
  KEYTIMEOUT: '1',
  npm_config_cache: '/home/u/.npm',
  npm_config_registry: 'https://registry.npmjs.org/',
  npm_package_name: 'my-app',
  npm_lifecycle_event: 'test',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_config_user_agent: 'npm/10.2.3 node/v20.10.0 linux x64 workspaces/false',
  DOCKER_BUILDKIT: '1',
  GOPRIVATE: 'github.com/acme/*',
  GOPROXY: 'https://proxy.golang.org,direct',
  RUST_LOG: 'info,hyper=warn',
  RUSTFLAGS: '-C target-cpu=native',
  PIP_INDEX_URL: 'https://pypi.org/simple',
  VIRTUAL_ENV: '/work/.venv',
  BUNDLE_GEMFILE: '/work/Gemfile',
  BUNDLE_PATH: 'vendor/bundle',
  HF_HOME: '/home/u/.cache/huggingface',
  GITHUB_ACTIONS: 'true',
  GITHUB_WORKSPACE: '/home/runner/work/app/app',
  GITHUB_SHA: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
  AWS_REGION: 'eu-west-1',
  SENTRY_ENVIRONMENT: 'staging',
  VAULT_ADDR: 'https://vault.corp:8200',
  NODE_EXTRA_CA_CERTS: '/etc/ssl/corp-ca.pem',
  VSCODE_IPC_HOOK_CLI: '/run/user/1000/vscode-ipc-6f1a2b3c-4d5e-6f7a-8b9c-0d1e2f3a4b5c.sock',
  WT_SESSION: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
  WSLENV: 'WT_SESSION::WT_PROFILE_ID',
  MAILTO: 'mailto:ops@example.com',
  GIT_SSH_COMMAND: 'ssh -o StrictHostKeyChecking=no',
  PGHOST: 'localhost',
  POSTGRES_USER: 'app',
  KEYCLOAK_URL: 'http://localhost:8081',
  PRIMARY_KEY_COLUMN: 'id',
  DJANGO_SETTINGS_MODULE: 'app.settings.test',
  XMODIFIERS: '@im=ibus',
  PS1: '\\u@\\h:\\w\\$ ',
};

// Not under /tmp: the sandbox has a private /tmp.
const BASE = path.join(os.homedir(), '.cache', 'openagent-attack-env-tests');

function workspace(): string {
  fs.mkdirSync(BASE, { recursive: true });
  return fs.realpathSync(fs.mkdtempSync(path.join(BASE, 'ws-')));
}

function sandbox(mode: 'auto' | 'off', env: Record<string, string>, root = workspace()): OsSandbox {
  return new OsSandbox(
    { mode: () => mode, network: () => false, passEnv: () => [], root: () => root },
    { env: { PATH: process.env.PATH!, HOME: root, ...env } },
  );
}

const HOSTILE_ENV = Object.fromEntries(Object.values(HOSTILE).map((value, at) => [`SETTING_${at}`, value]));

describe('attack: the environment scrub, second pass (issue 32, item 2)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  after(() => fs.rmSync(BASE, { recursive: true, force: true }));

  describe('credentials judged by what the value is, under a name that says nothing', () => {
    for (const [what, value] of Object.entries(HOSTILE)) {
      it(what, () => {
        assert.equal(isSecretVariable('SETTING', value), true, value);
        assert.deepEqual(scrubEnvironment({ SETTING: value }), {});
      });
    }
  });

  it('secret names are removed whatever their value', () => {
    assert.deepEqual(
      SECRET_NAMES.filter((name) => isSecretVariable(name, 'x')),
      SECRET_NAMES,
    );
  });

  it("a developer's toolchain variables are kept (measured: every one of them)", () => {
    const kept = scrubEnvironment(TOOLCHAIN);
    assert.deepEqual(
      Object.keys(TOOLCHAIN).filter((name) => !(name in kept)),
      [],
    );
  });

  it('BASH_ENV and ENV are dropped: a start-up file cannot export a key again', async () => {
    const root = workspace();
    const startup = path.join(root, 'startup.sh');
    fs.writeFileSync(startup, `export REINJECTED=${MARK}-bash-env\n`);
    for (const mode of ['off', 'auto'] as const) {
      const shell = new ChildProcessShell(undefined, sandbox(mode, { BASH_ENV: startup, ENV: startup }, root));
      const result = await shell.run('echo "[$REINJECTED]"; env', {
        cwd: root,
        timeoutMs: PATIENCE_MS,
        maxOutputChars: 50_000,
      });
      assert.match(result.output, /\[\]/, `${mode}: ${result.output}`);
      assert.doesNotMatch(result.output, new RegExp(MARK));
      assert.doesNotMatch(result.output, /BASH_ENV|^ENV=/m);
    }
  });

  it('the child-process shell, confined or not, hands `env` none of them and keeps the toolchain', async () => {
    for (const mode of ['off', 'auto'] as const) {
      const root = workspace();
      const shell = new ChildProcessShell(undefined, sandbox(mode, { ...HOSTILE_ENV, ...TOOLCHAIN }, root));
      const result = await shell.run('env', { cwd: root, timeoutMs: PATIENCE_MS, maxOutputChars: 100_000 });
      assert.equal(result.exitCode, 0, result.output);
      assert.doesNotMatch(result.output, new RegExp(MARK, 'i'), mode);
      for (const name of ['GIT_AUTHOR_NAME', 'BUNDLE_GEMFILE', 'npm_lifecycle_event', 'TOKENIZERS_PARALLELISM'])
        assert.match(result.output, new RegExp(`^${name}=`, 'm'), `${mode}: ${name} kept`);
    }
  });

  it('a background job gets the same environment', async () => {
    const root = workspace();
    const runner = new ChildProcessRunner(undefined, sandbox('off', HOSTILE_ENV, root));
    const job = runner.start('env', { cwd: root });
    let output = '';
    job.onOutput((chunk) => (output += chunk));
    const code = await new Promise<number | undefined>((resolve) => job.onExit(resolve));
    assert.equal(code, 0, output);
    assert.match(output, /^PATH=/m);
    assert.doesNotMatch(output, new RegExp(MARK, 'i'));
  });

  it("the terminal's line, unconfined: not the terminal shell's variables (its rc files export keys)", () => {
    const root = workspace();
    const { line, afterRun } = sandbox('off', { KEPT_SETTING: 'kept\nacross lines' }, root).terminalLine(
      'echo "[$KEPT_SETTING]"; env',
      { cwd: root },
    );
    try {
      // The interactive shell the line is typed into: a key its ~/.bashrc exported, a BASH_ENV.
      const startup = path.join(root, 'startup.sh');
      fs.writeFileSync(startup, `export FROM_BASH_ENV=${MARK}-terminal\n`);
      const output = execFileSync('/bin/bash', ['-c', line], {
        encoding: 'utf8',
        env: {
          ...process.env,
          OPENAI_API_KEY: `sk-${MARK}-rc`,
          FROM_RC: `ghp_${MARK}abcdefghijklmnopqrstuv`,
          BASH_ENV: startup,
        },
      });
      assert.match(output, /\[kept\nacross lines\]/);
      assert.doesNotMatch(output, new RegExp(MARK));
    } finally {
      afterRun();
    }
  });

  it('an MCP stdio server gets what the user configured for it, not the host environment', async () => {
    const everything = path.resolve(
      __dirname,
      '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    );
    const hostKey = 'OPENAGENT_ATTACK_HOST_TOKEN';
    process.env[hostKey] = `ghp_${MARK}abcdefghijklmnopqrstuv`;
    const mcp = new McpConnections({ clientName: 'openagent-test', clientVersion: '0.0.0', onStatus: () => undefined });
    try {
      await mcp.start({
        everything: { command: process.execPath, args: [everything, 'stdio'], env: { CONFIGURED_FOR_IT: 'yes' } },
      });
      const getEnv = (await mcp.tools()).find((tool) => tool.name === 'mcp__everything__get-env');
      assert.ok(getEnv, 'server-everything has get-env');
      const result = await getEnv.execute(
        {},
        { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal: new AbortController().signal },
      );
      const output = typeof result === 'string' ? result : JSON.stringify(result);
      assert.match(output, /CONFIGURED_FOR_IT/);
      assert.doesNotMatch(output, new RegExp(`${hostKey}|${MARK}`));
    } finally {
      delete process.env[hostKey];
      await mcp.stop();
    }
  });
});
