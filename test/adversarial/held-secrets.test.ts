/**
 * Issue 32, item 3, at the redactor: what HeldSecrets holds (from the environment, MCP servers'
 * settings, a team database URL), what it finds (runs of FRAGMENT_CHARACTERS, each encoding),
 * what it does not (shorter runs: the stated limit), streams cut anywhere, and its cost on
 * MB-sized text (measured and printed, not asserted: tests never depend on speed).
 */
import assert from 'node:assert/strict';
import { HeldSecrets } from '../../src/core/llm/held-secrets';
import { FRAGMENT_CHARACTERS } from '../../src/core/llm/secret-matcher';
import { mcpCredentialSettings, parseMcpServers } from '../../src/core/mcp/mcp-config';
import { toLlmError } from '../../src/core/llm/map-sdk-error';

const KEY = 'house-key-3f9c2a7b61d04e58';

function runsOf(secret: string, length = FRAGMENT_CHARACTERS): string[] {
  const runs: string[] = [];
  for (let start = 0; start + length <= secret.length; start++) runs.push(secret.slice(start, start + length));
  return runs;
}

describe('adversarial: the held secrets and their redactor (issue 32, item 3)', () => {
  it('holds the credentials of the environment, not its paths or words', () => {
    const held = new HeldSecrets();
    held.addEnvironment({
      OPENAGENT_API_KEY: 'oa-key-9Vb4Rt8Zc1Qx2Lm7',
      OTEL_EXPORTER_OTLP_HEADERS:
        'Authorization=Basic%20dXNlcjpzM2NyZXQtcGFzc3dvcmQ%3D,x-honeycomb-team=hcaik_01hq2x3y4z',
      OPENAGENT_TEAM_DATABASE_URL: 'postgres://lead:Tr0ub4dor-and-3@db.example.com/team',
      HTTPS_PROXY: 'http://proxyuser:pr0xy-Passw0rd@proxy:3128',
      DESKTOP_SESSION: 'ubuntu',
      XDG_SESSION_TYPE: 'wayland',
      SSH_AUTH_SOCK: '/tmp/ssh-XXXXabcd/agent.1234',
      KUBECONFIG: '/home/me/.kube/config',
      PATH: '/usr/bin:/bin',
    });
    const list = held.list();
    for (const secret of [
      'oa-key-9Vb4Rt8Zc1Qx2Lm7',
      's3cret-password',
      'hcaik_01hq2x3y4z',
      'Tr0ub4dor-and-3',
      'pr0xy-Passw0rd',
    ])
      assert.ok(list.includes(secret), `holds ${secret}: ${JSON.stringify(list)}`);
    for (const plain of ['ubuntu', 'wayland', '/tmp/ssh-XXXXabcd/agent.1234', '/home/me/.kube/config', '/usr/bin:/bin'])
      assert.ok(!list.some((secret) => secret.includes(plain)), `does not hold ${plain}`);
    // Holding them does not redact ordinary text around them.
    assert.equal(
      held.redact('https://db.example.com/team on ubuntu, /home/me/.kube/config'),
      'https://db.example.com/team on ubuntu, /home/me/.kube/config',
    );
  });

  it("holds MCP servers' keys: env, headers, a password in the URL", () => {
    const { servers } = parseMcpServers(
      {
        github: {
          command: 'gh-mcp',
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_mcpMarker0123456789abcdefghijkl', LOG_LEVEL: 'debug' },
        },
        remote: {
          url: 'https://bot:mcp-Url-Passw0rd@mcp.example.com/sse',
          headers: { 'X-API-Key': 'mcp-header-key-77aa99' },
        },
      },
      'test',
    );
    const held = new HeldSecrets();
    const credentials = mcpCredentialSettings(servers);
    held.addEnvironment(credentials.env);
    held.addHeaders(credentials.headers);
    assert.deepEqual(
      [...held.list()].sort(),
      ['ghp_mcpMarker0123456789abcdefghijkl', 'mcp-Url-Passw0rd', 'mcp-header-key-77aa99'].sort(),
    );
  });

  it(`redacts every run of ${FRAGMENT_CHARACTERS} characters, and leaves shorter ones (the stated limit)`, () => {
    const held = new HeldSecrets([KEY]);
    for (const run of runsOf(KEY)) assert.equal(held.redact(`a ${run} b`), 'a [REDACTED] b', run);
    for (const run of runsOf(KEY, FRAGMENT_CHARACTERS - 1))
      assert.equal(held.redact(`a ${run} b`), `a ${run} b`, 'shorter runs are kept: ordinary text would go too');
  });

  it('a secret shorter than 12 characters goes only whole, in each encoding', () => {
    const held = new HeldSecrets(['hunter2!x']);
    assert.equal(held.redact('pw hunter2!x and hunter2 alone'), 'pw [REDACTED] and hunter2 alone');
    assert.equal(held.redact(Buffer.from('hunter2!x').toString('hex')), '[REDACTED]');
  });

  it('a stream cut at any place never shows a run of the key', () => {
    const held = new HeldSecrets([KEY, 'sk-ant-api03-heldNotUsed7Qx2Lm9Vb4Rt8Zc1']);
    const text = `start ${KEY} middle sk-ant-api03-heldNotUsed7Qx2Lm9Vb4Rt8Zc1 and ${KEY.slice(0, 12)}… end ${KEY}`;
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 300; trial++) {
      const stream = held.stream();
      let shown = '';
      for (let at = 0; at < text.length;) {
        const size = 1 + Math.floor(random() * 20);
        shown += stream.push(text.slice(at, at + size));
        at += size;
      }
      shown += stream.end();
      assert.equal(shown, held.redact(text), `trial ${trial}`);
      assert.ok(!runsOf(KEY).some((run) => shown.includes(run)), shown);
    }
  });

  it("a provider error quoting the client's own key, in any form, comes out without it", () => {
    for (const echoed of [
      KEY,
      Buffer.from(`Bearer ${KEY}`).toString('base64'),
      Buffer.from(KEY).toString('hex'),
      KEY.slice(3, 15),
    ]) {
      const error = Object.assign(new Error(`400 invalid header ${echoed}`), { status: 400 });
      const message = toLlmError(error, 'Server', undefined, KEY).message;
      assert.match(message, /refused the request \(400\)/);
      assert.ok(!runsOf(KEY).some((run) => message.includes(run)) && !message.includes(echoed), message);
    }
  });

  it('finds held secrets in linear time on MB-sized text (measured)', () => {
    const held = new HeldSecrets([
      KEY,
      'sk-ant-api03-heldNotUsed7Qx2Lm9Vb4Rt8Zc1',
      'Tr0ub4dor-and-3',
      'hcaik_01hq2x3y4z',
    ]);
    const line = 'lorem ipsum dolor sit amet 0123456789abcdef QmFzZTY0IHRleHQ= %2F%3A\n';
    const measure = (megabytes: number) => {
      const text = line.repeat(Math.ceil((megabytes * 1_048_576) / line.length)) + Buffer.from(KEY).toString('base64');
      held.redact(text.slice(0, 10_000));
      const started = process.hrtime.bigint();
      const result = held.redact(text);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      assert.ok(!result.includes(Buffer.from(KEY).toString('base64').slice(2, 30)));
      return ms;
    };
    const one = measure(1);
    const four = measure(4);
    console.log(`      redactText with 4 held secrets: 1 MB ${one.toFixed(0)} ms, 4 MB ${four.toFixed(0)} ms`);
  });
});
