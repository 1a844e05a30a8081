import assert from 'node:assert/strict';
import { jsonForPostgres } from '../../../src/team/pg-json';

describe('JSON for PostgreSQL', () => {
  it('replaces U+0000 and lone surrogates, in values and keys at any depth, with U+FFFD', () => {
    let deep: unknown = { ['k\u0000']: 'a\u0000b\ud800c\udfffd' };
    for (let level = 0; level < 50; level++) deep = [deep];
    const text = jsonForPostgres(deep);
    assert.doesNotMatch(text, /\\u0000|\\ud[89a-f]/i);
    let back = JSON.parse(text) as unknown;
    for (let level = 0; level < 50; level++) back = (back as unknown[])[0];
    assert.deepEqual(back, { 'k\ufffd': 'a\ufffdb\ufffdc\ufffdd' });
  });

  it('leaves everything else exactly as JSON.stringify wrote it', () => {
    const value = {
      // A backslash followed by the text "u0000" is not a NUL character.
      literal: '\\u0000 and \\\\u0000 and \\ud800',
      pair: 'emoji 😀 and 𝒳',
      controls: '\u0001\u001f\t\n',
      quote: '"\\"',
    };
    assert.equal(jsonForPostgres(value), JSON.stringify(value));
    assert.deepEqual(JSON.parse(jsonForPostgres(value)), value);
  });

  it('replaces a NUL right after an escaped backslash, and NULs in a row', () => {
    const value = { a: '\\\u0000', b: '\u0000\u0000\u0000', c: '\\\\\u0000' };
    assert.deepEqual(JSON.parse(jsonForPostgres(value)), { a: '\\\ufffd', b: '\ufffd\ufffd\ufffd', c: '\\\\\ufffd' });
  });

  it('handles hostile text in one pass: a megabyte of backslashes, of NULs, of escapes', () => {
    // A scan that went back over runs of backslashes would take hours here (mocha's timeout).
    for (const value of ['\\'.repeat(1_000_000) + '\u0000', '\u0000'.repeat(1_000_000), '\u0001\\'.repeat(500_000)]) {
      const back = (JSON.parse(jsonForPostgres({ value })) as { value: string }).value;
      assert.equal(back.length, value.length);
      assert.ok(!back.includes('\u0000'));
      assert.equal(back.replaceAll('\ufffd', '\u0000'), value);
    }
  });
});
