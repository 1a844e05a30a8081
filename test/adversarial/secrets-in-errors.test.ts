/**
 * Class 4 of the adversarial suite (part): a server that echoes the key it was sent in an
 * error body. The CLI prints the error, the store keeps it: the key must be in neither.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { filesUnder } from '../fixtures/files-under';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

/** A key no key-shape pattern would catch: only knowing it is in use can hide it. */
const KEY = 'house-key-3f9c2a7b61d04e58';

describe('adversarial: a server echoing the key in its error', function () {
  this.timeout(TEST_TIMEOUT_MS);

  for (const status of [400, 401, 422, 500]) {
    it(`${status}: the CLI shows the error without the key, and the store does not keep it`, async () => {
      const server = await FakeModelServer.start({
        scenario: {
          name: 'echo-key',
          turns: [
            {
              text: 'never',
              fault: {
                type: 'http_error',
                status,
                message: `invalid request; you sent Authorization: ${KEY}`,
                times: 10,
              },
            },
          ],
        },
      });
      try {
        const store = tempFolder('secret-store');
        const ran = await runCli([...cliArgs(server, store), 'hi'], {
          cwd: tempFolder('secret-ws'),
          env: { OPENAI_API_KEY: KEY },
        });
        assert.equal(ran.code, 1);
        assert.match(ran.stderr, /error: /);
        assert.ok(!ran.stderr.includes(KEY) && !ran.stdout.includes(KEY), ran.stderr);
        if (status !== 401) assert.match(ran.stderr, /\[REDACTED\]/);
        assert.ok(!filesUnder(store).includes(KEY), 'the store keeps no copy of the key');
      } finally {
        await server.close();
      }
    });
  }
});

/**
 * Issue 32, item 3: every secret the product holds — not only the key in use — is redacted
 * wherever it appears, also cut across two outputs or encoded in one.
 */
const OTHER_KEY = 'sk-ant-api03-heldNotUsed7Qx2Lm9Vb4Rt8Zc1';
const HEADER_KEY = 'hcaik_marker01hq2x3y4z5a6b7c8';

/** Every run of 8 characters of `secret`, and every 12-character window of each encoded blob sent. */
function leaks(text: string, secrets: readonly string[], blobs: readonly string[] = []): string[] {
  const found: string[] = [];
  for (const secret of secrets)
    for (let start = 0; start + 8 <= secret.length; start++) {
      const run = secret.slice(start, start + 8);
      // `sk-ant-api03-` is every Anthropic key's public prefix: not a leak on its own.
      if (!'sk-ant-api03-'.includes(run) && text.includes(run)) found.push(run);
    }
  for (const blob of blobs)
    for (let start = 0; start + 12 <= blob.length; start++)
      if (text.includes(blob.slice(start, start + 12))) found.push(blob.slice(start, start + 12));
  return [...new Set(found)];
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const ENCODED: Array<[string, string]> = [
  ['base64', base64(KEY)],
  ['base64 after one byte', base64(`:${KEY}`)],
  ['base64 after two bytes', base64(`u:${KEY}`)],
  ['base64 of a Basic header', base64(`user:${OTHER_KEY}`)],
  ['base64url', Buffer.from(`>>${KEY}??`).toString('base64url')],
  ['hex', Buffer.from(KEY).toString('hex')],
  ['HEX', Buffer.from(OTHER_KEY).toString('hex').toUpperCase()],
  ['URL-encoded', encodeURIComponent(`key=${KEY}&x=1`)],
  ['percent-encoded bytes', Buffer.from(KEY).toString('hex').replace(/../g, '%$&')],
];

async function runAgainst(turns: unknown[], env: Record<string, string>, args: string[] = ['hi']) {
  const server = await FakeModelServer.start({ scenario: { name: 'held-secrets', turns } as never });
  try {
    const store = tempFolder('held-store');
    const ran = await runCli([...cliArgs(server, store), ...args], { cwd: tempFolder('held-ws'), env });
    return { ran, printed: ran.stdout + ran.stderr, stored: filesUnder(store) };
  } finally {
    await server.close();
  }
}

const HELD_ENV = {
  OPENAI_API_KEY: KEY,
  ANTHROPIC_API_KEY: OTHER_KEY,
  OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${HEADER_KEY}`,
};

describe('adversarial: every held secret, whole, split or encoded (issue 32, item 3)', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('a key the CLI holds but does not use (ANTHROPIC_API_KEY), and a telemetry header, echoed in an error', async () => {
    const { ran, printed, stored } = await runAgainst(
      [
        {
          text: 'never',
          fault: { type: 'http_error', status: 400, message: `bad: ${OTHER_KEY} / ${HEADER_KEY}`, times: 10 },
        },
      ],
      HELD_ENV,
    );
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /\[REDACTED\]/);
    assert.deepEqual(leaks(printed, [OTHER_KEY, HEADER_KEY]), [], printed);
    assert.deepEqual(leaks(stored, [OTHER_KEY, HEADER_KEY]), [], 'stored');
  });

  for (const [encoding, blob] of ENCODED) {
    it(`a key echoed ${encoding} in an error body is redacted in the CLI output and the store`, async () => {
      const { ran, printed, stored } = await runAgainst(
        [
          {
            text: 'never',
            fault: { type: 'http_error', status: 422, message: `you sent ${blob} (rejected)`, times: 10 },
          },
        ],
        HELD_ENV,
      );
      assert.equal(ran.code, 1);
      assert.match(ran.stderr, /error: /);
      assert.deepEqual(leaks(printed, [KEY, OTHER_KEY], [blob]), [], printed);
      assert.deepEqual(leaks(stored, [KEY, OTHER_KEY], [blob]), [], 'stored');
    });
  }

  for (const chunkSize of [1, 3, 7, 13]) {
    it(`a key streamed back in ${chunkSize}-character deltas never shows, not even in halves`, async () => {
      const { ran, printed, stored } = await runAgainst(
        [{ text: `Your key is ${KEY} and the other ${OTHER_KEY}, ok.`, chunkSize }],
        HELD_ENV,
      );
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /Your key is \[REDACTED\] and the other \[REDACTED\], ok\./);
      assert.deepEqual(leaks(printed, [KEY, OTHER_KEY]), [], printed);
      assert.deepEqual(leaks(stored, [KEY, OTHER_KEY]), [], 'stored');
    });
  }

  it('a stream cut in the middle of a key: the half that came is not shown', async () => {
    const { printed, stored } = await runAgainst(
      [{ text: `Here it is: ${KEY}${KEY} and more text after it`, chunkSize: 5, fault: { type: 'cut_mid_text' } }],
      HELD_ENV,
    );
    assert.deepEqual(leaks(printed, [KEY]), [], printed);
    assert.deepEqual(leaks(stored, [KEY]), [], 'stored');
  });

  it('a key split across two tool outputs: neither half reaches the screen or the store', async () => {
    const first = KEY.slice(0, 13);
    const second = KEY.slice(13);
    const { printed, stored } = await runAgainst(
      [
        {
          text: 'Reading.',
          toolCalls: [
            { id: 'call_a', name: 'bash', arguments: { command: `echo part-one ${first}` } },
            { id: 'call_b', name: 'bash', arguments: { command: `echo part-two ${second}` } },
          ],
        },
        { text: 'Done.' },
      ],
      HELD_ENV,
      ['--yes', 'go'],
    );
    assert.match(stored, /part-one/, 'the tool outputs were stored');
    assert.ok(!printed.includes(first) && !printed.includes(second), printed);
    assert.ok(!stored.includes(first) && !stored.includes(second), 'stored');
  });
});
