/**
 * Attacking issue 32, item 3 (second pass): a secret the product holds, echoed in spellings
 * the first redactor did not read (every character JSON-escaped, zero-width characters or soft
 * hyphens between them, fullwidth letters, HTML references, upper case, PHP's `\/`), split in
 * three and interleaved, and — end to end through the CLI and the fake model server — a held
 * key in a tool's output or a file, which must not reach the model (what the model never had,
 * it cannot give back in a form no redactor finds).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HeldSecrets } from '../../src/core/llm/held-secrets';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { filesUnder } from '../fixtures/files-under';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const KEY = 'house-key-3f9c2a7b61d04e58';
const AWS_LIKE = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

/** Every run of 8 characters of `secret` found in `text`, compared as the redactor should read it. */
function runsIn(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let start = 0; start + 8 <= secret.length; start++)
    if (text.includes(secret.slice(start, start + 8))) found.push(secret.slice(start, start + 8));
  return found;
}

const escapeAll = (text: string) =>
  [...text].map((character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const fullwidth = (text: string) =>
  [...text].map((character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0)).join('');

/** What each spelling reads as once decoded: the redacted text must not read as the key. */
const SPELLINGS: Array<[string, string, (text: string) => string]> = [
  ['every character JSON-escaped', `{"error":"bad key ${escapeAll(KEY)}"}`, (text) => JSON.parse(text).error],
  ['the first character JSON-escaped', `{"error":"bad \\u0068${KEY.slice(1)}"}`, (text) => JSON.parse(text).error],
  ['zero-width spaces between', [...KEY].join('\u200b'), (text) => text.replace(/\u200b/g, '')],
  ['zero-width joiners and a BOM', `\ufeff${[...KEY].join('\u200d')}`, (text) => text.replace(/[\u200d\ufeff]/g, '')],
  ['soft hyphens between', [...KEY].join('\u00ad'), (text) => text.replace(/\u00ad/g, '')],
  ['fullwidth letters', fullwidth(KEY), (text) => text.normalize('NFKC')],
  [
    'HTML decimal references',
    [...KEY].map((character) => `&#${character.charCodeAt(0)};`).join(''),
    (text) => text.replace(/&#(\d+);/g, (_all, code: string) => String.fromCharCode(Number(code))),
  ],
  [
    'HTML hex references',
    [...KEY].map((character) => `&#x${character.charCodeAt(0).toString(16)};`).join(''),
    (text) => text.replace(/&#x([0-9a-f]+);/g, (_all, code: string) => String.fromCharCode(parseInt(code, 16))),
  ],
  ['upper case', `KEY=${KEY.toUpperCase()}`, (text) => text.toLowerCase()],
  ['PHP-escaped slashes', `{"secret":"${AWS_LIKE.replace(/\//g, '\\/')}"}`, (text) => JSON.parse(text).secret],
  [
    'three pieces among other text',
    `first ${KEY.slice(0, 9)}, then ${KEY.slice(9, 18)} and last ${KEY.slice(18)}.`,
    (text) => text,
  ],
];

describe('attack: held secrets in spellings the redactor must read (issue 32.3)', () => {
  const held = new HeldSecrets([KEY, AWS_LIKE]);

  for (const [name, text, decode] of SPELLINGS) {
    it(`${name}: nothing of the key is left, read either way`, () => {
      const redacted = held.redact(text);
      assert.match(redacted, /\[REDACTED\]/, redacted);
      let read = redacted;
      try {
        read = decode(redacted);
      } catch {
        // A JSON text cut by the redaction: read it as it is.
      }
      for (const secret of [KEY, AWS_LIKE]) {
        assert.deepEqual(runsIn(read, secret), [], `${name}: ${redacted}`);
        assert.deepEqual(runsIn(read.toLowerCase(), secret.toLowerCase()), [], `${name}: ${redacted}`);
      }
    });
  }

  it('a stream of deltas with zero-width characters between the key’s characters', () => {
    const spelled = `before ${[...KEY].join('\u200b')} after`;
    for (const size of [1, 2, 5, 11]) {
      const stream = held.stream();
      let shown = '';
      for (let at = 0; at < spelled.length; at += size) shown += stream.push(spelled.slice(at, at + size));
      shown += stream.end();
      const read = shown.replace(/\u200b/g, '');
      assert.deepEqual(runsIn(read, KEY), [], `${size}: ${shown}`);
      assert.match(shown, /^before .*after$/s);
    }
  });

  it('ordinary text is left as it is: no folding shows through', () => {
    const text = 'Grüße — “quoted” text, \\u0041 escapes, &#65; references and ＡＢＣ stay as written.';
    assert.equal(held.redact(text), text);
  });

  it('two HeldSecrets do not share their matchers: each redacts its own secrets only', () => {
    const other = new HeldSecrets(['another-held-value-81d2e4f0']);
    assert.equal(other.redact(`x ${KEY} y`), `x ${KEY} y`);
    assert.equal(held.redact('x another-held-value-81d2e4f0 y'), 'x another-held-value-81d2e4f0 y');
    assert.equal(other.redact('x another-held-value-81d2e4f0 y'), 'x [REDACTED] y');
  });
});

const HELD_KEY = 'sk-ant-api03-heldNotUsed7Qx2Lm9Vb4Rt8Zc1';
const IN_USE = 'house-key-3f9c2a7b61d04e58';

/** The CLI against the fake model server, in a workspace of `files`; what the server was sent, printed and stored. */
async function runAgainst(turns: unknown[], files: Record<string, string>) {
  const server = await FakeModelServer.start({ scenario: { name: 'withheld', turns } as never });
  try {
    const store = tempFolder('withheld-store');
    const workspace = tempFolder('withheld-ws');
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
      fs.writeFileSync(path.join(workspace, file), text);
    }
    const ran = await runCli([...cliArgs(server, store), '--yes', 'go'], {
      cwd: workspace,
      env: { OPENAI_API_KEY: IN_USE, ANTHROPIC_API_KEY: HELD_KEY },
    });
    return {
      ran,
      sent: JSON.stringify(server.modelCalls.map((call) => call.body)),
      calls: server.modelCalls.length,
      printed: ran.stdout + ran.stderr,
      stored: filesUnder(store),
    };
  } finally {
    await server.close();
  }
}

describe('attack: a held key in a tool output never reaches the model (issue 32.3)', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const CASES: Array<[string, Record<string, string>, unknown]> = [
    [
      'read_file of an ordinary file holding the key',
      { 'config/settings.txt': `provider_token: ${HELD_KEY}\n` },
      { id: 'call_read', name: 'read_file', arguments: { path: 'config/settings.txt' } },
    ],
    [
      'search_files matching the key in an ordinary file',
      { 'notes/keys.md': `the team key is ${HELD_KEY} (do not share)\n` },
      { id: 'call_search', name: 'search_files', arguments: { pattern: 'team key' } },
    ],
    [
      'read_file of a file holding the key base64-encoded',
      { 'auth.txt': `Authorization: Basic ${Buffer.from(`user:${HELD_KEY}`).toString('base64')}\n` },
      { id: 'call_b64', name: 'read_file', arguments: { path: 'auth.txt' } },
    ],
    [
      'read_file of a file holding the key in use, JSON-escaped',
      { 'dump.json': `{"k":"${escapeAll(IN_USE)}"}\n` },
      { id: 'call_json', name: 'read_file', arguments: { path: 'dump.json' } },
    ],
  ];

  for (const [name, files, call] of CASES) {
    it(`${name}: the next request holds no run of it`, async () => {
      const { ran, sent, calls, printed, stored } = await runAgainst(
        [{ text: 'Looking.', toolCalls: [call] }, { text: 'Done.' }],
        files,
      );
      assert.equal(ran.code, 0, printed);
      assert.equal(calls, 2, 'the tool result was sent back to the model');
      assert.match(sent, /\[REDACTED\]/, 'the tool result went back, redacted');
      const decoded = sent.replace(/\\\\u([0-9a-f]{4})/g, (_all, code: string) =>
        String.fromCharCode(parseInt(code, 16)),
      );
      const basic = Buffer.from(`user:${HELD_KEY}`).toString('base64');
      for (const secret of [HELD_KEY.slice('sk-ant-api03-'.length), IN_USE, basic.slice(8)])
        assert.deepEqual(runsIn(decoded, secret), [], `sent to the model: ${sent.slice(0, 2000)}`);
      assert.deepEqual(runsIn(printed, HELD_KEY.slice(13)), [], printed);
      assert.deepEqual(runsIn(stored, HELD_KEY.slice(13)), [], 'stored');
    });
  }
});
