/**
 * Issue 32, item 2: the environment commands get is judged by what each value IS, not only by
 * its name. Credentials under names no word list foresees — header lists, a token as a URL's
 * user, an auth scheme in any variable, a token in an option list, a bare generated key — are
 * removed; the ordinary environment of a workstation or a CI runner is kept (false positives
 * are measured on this machine's own environment and on typical CI runners').
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { isSecretVariable, scrubEnvironment } from '../../src/core/policy/command-env';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

/** Credentials under names that say nothing: each value carries a marker that must not get through. */
const HOSTILE: Record<string, string> = {
  OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic bWFya2VyLWJhc2ljOnNlY3JldA==',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-honeycomb-team=hcaik_marker01hq2x3y4z5a6b7c8',
  EXPORTER_HDRS: 'api-key=marker4f7d2a9c1e8b,x-tenant=acme',
  UPLOAD_OPTS: 'region=eu;DD-API-KEY=marker0123456789abcdef',
  REPO: 'https://ghp_markerabcdefghijklmnopqrstuvwxyz01@github.com/org/repo.git',
  MIRROR: 'https://markerZx81kPqQm2vT7rLw@git.example.com/x.git',
  UPSTREAM: 'git+https://oauth2marker@gitlab.example.com/group/x.git',
  EXTRA: 'Bearer marker.abc.def123456',
  CURL_FLAGS: '--header "Authorization: Token marker9f8e7d6c5b4a"',
  LIST: 'region=eu,tier=gold,id=Q2hhbmdlTWVtYXJrZXIxMjM0NTY3ODkw',
  BLOB: 'https://acct.blob.core.windows.net/c?sv=2020-08-04&sig=markerDEF123%3D',
  CONN: 'Server=db;Database=x;User Id=sa;Password=markerHunter2!',
  REGISTRY_LINE: '//registry.npmjs.org/:_authToken=marker1234efgh',
  RANDOM_THING: 'aZ3kP9qL2mX7vB4nR8tWmarker1yC6',
  HOOK_TARGET: 'https://hooks.example.com/services/T000/B000/XXXX?token=markerQQQ',
  GRPC_META: 'authorization: Bearer markerdeadbeefcafe',
};

/** A workstation's and CI runners' ordinary variables: all kept. */
const ORDINARY: Record<string, string> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/bin:/root/.nvm/versions/node/v20.10.0/bin',
  LANG: 'en_US.UTF-8',
  HOME: '/home/runner',
  TERM: 'xterm-256color',
  SHELL: '/bin/bash',
  http_proxy: 'http://proxy.corp:3128',
  HTTPS_PROXY: 'http://10.0.0.1:8080',
  NO_PROXY: 'localhost,127.0.0.1,.corp.example.com',
  LS_COLORS: 'rs=0:di=01;34:ln=01;36:pi=40;33:so=01;35:bd=40;33;01:*.tar=01;31:*.key=01;31:*.pem=01;31',
  OTEL_RESOURCE_ATTRIBUTES: 'service.name=checkout,deployment.environment=prod,team=payments',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
  CI: 'true',
  CI_COMMIT_SHA: '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
  CI_PIPELINE_URL: 'https://gitlab.com/group/project/-/pipelines/123456',
  CI_PROJECT_PATH: 'group/project',
  INVOCATION_ID: '5f3c1e2a9b8d4c7e6f5a4b3c2d1e0f9a',
  BUILDKITE_BUILD_ID: '550e8400-e29b-41d4-a716-446655440000',
  RUNNER_OS: 'Linux',
  RUNNER_TEMP: '/home/runner/work/_temp',
  ImageVersion: '20240101.1.0',
  LESSOPEN: '| /usr/bin/lesspipe %s',
  NODE_OPTIONS: '--max-old-space-size=4096',
  JAVA_TOOL_OPTIONS: '-Dfile.encoding=UTF-8 -Xmx2g',
  MAVEN_OPTS: '-Xmx3072m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
  GOFLAGS: '-mod=mod',
  GIT_SSH_COMMAND: 'ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null',
  DISPLAY: ':0',
  EDITOR: 'vim',
  MAIN_CLASS: 'MyVeryLongJavaClassName2Impl',
  PS1: '\\u@\\h:\\w\\$ ',
  TZ: 'Europe/Paris',
  LC_ALL: 'C.UTF-8',
  PYTHONPATH: '/work/src:/work/lib',
  JAVA_HOME: '/usr/lib/jvm/java-17-openjdk-amd64',
  CONDA_DEFAULT_ENV: 'base',
  HOSTNAME: 'runner-7d9f8b6c5d-x2k4p',
};

/** ORDINARY without what would change how the CLI itself runs (its home, PATH, a telemetry collector). */
function machineSafe(variables: Record<string, string>): Record<string, string> {
  const { HOME: _home, PATH: _path, OTEL_EXPORTER_OTLP_ENDPOINT: _endpoint, ...rest } = variables;
  return rest;
}

describe('adversarial: the environment scrub judges values, not only names (issue 32, item 2)', function () {
  this.timeout(TEST_TIMEOUT_MS);

  for (const [name, value] of Object.entries(HOSTILE)) {
    it(`removes ${name}=${value.slice(0, 24)}…`, () => {
      assert.equal(isSecretVariable(name, value), true);
      // By its value alone, under a name that says nothing.
      assert.equal(isSecretVariable('SETTING', value), true);
      assert.equal(scrubEnvironment({ [name]: value })[name], undefined);
    });
  }

  it('keeps a workstation and CI runner environment whole', () => {
    const kept = scrubEnvironment(ORDINARY);
    assert.deepEqual(
      Object.keys(ORDINARY).filter((name) => !(name in kept)),
      [],
    );
  });

  it("keeps this machine's own variables unless their name or value says credential", () => {
    // Names alone decided before item 2; whatever the value test removes on top is listed here.
    const removedByValueOnly = Object.entries(process.env).filter(
      ([name, value]) => value !== undefined && isSecretVariable(name, value) && !isSecretVariable(name, ''),
    );
    assert.deepEqual(
      removedByValueOnly.filter(([, value]) => !/@|Bearer|Basic|=/.test(value!)).map(([name]) => name),
      [],
      'a plain variable of this machine was taken for a key',
    );
  });

  it('a pass_env name keeps a variable whatever its value', () => {
    assert.equal(scrubEnvironment(HOSTILE, ['EXTRA']).EXTRA, HOSTILE.EXTRA);
  });

  it('end to end: `env` in a confined command hands the model none of them', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'env-scrub',
        turns: [
          { text: 'Looking.', toolCalls: [{ id: 'call_env', name: 'bash', arguments: { command: 'env' } }] },
          { text: 'Done.' },
        ],
      },
    });
    try {
      const ran = await runCli([...cliArgs(server, tempFolder('env-store')), '--yes', 'look'], {
        cwd: tempFolder('env-ws'),
        env: { ...machineSafe(ORDINARY), ...HOSTILE, OPENAI_API_KEY: 'house-key-envscrub-000' },
      });
      const sent = JSON.stringify(server.modelCalls.map((request) => request.body));
      assert.match(sent, /Exit code 0/, ran.stderr);
      assert.deepEqual(
        Object.keys(HOSTILE).filter((name) => sent.includes(`${name}=`) || sent.includes(HOSTILE[name]!)),
        [],
      );
      assert.ok(!/marker/.test(sent), 'no marker reaches the model');
      for (const name of ['LS_COLORS', 'OTEL_RESOURCE_ATTRIBUTES', 'CI_COMMIT_SHA', 'MAIN_CLASS', 'NO_PROXY'])
        assert.ok(sent.includes(`${name}=`), `${name} is kept`);
    } finally {
      await server.close();
    }
  });
});
