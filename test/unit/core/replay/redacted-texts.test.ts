/** The recorder's memo of redacted texts answers only for the secrets the texts were redacted with. */
import assert from 'node:assert/strict';
import { redactValue, REDACTED } from '../../../../src/core/llm/redact';
import { SecretMatcher } from '../../../../src/core/llm/secret-matcher';
import { RedactedTexts } from '../../../../src/core/replay/redacted-texts';

describe("the recorder's redacted texts", () => {
  const secret = 'Zq8vN3kL0pW7xR2mT5bY';
  const long = `${'ordinary line of a tool output\n'.repeat(60)}token here: ${secret}\n`;

  it('a secret held later is found in a text already looked at without it', () => {
    const memo = new RedactedTexts();
    const before = new SecretMatcher([]);
    assert.equal(redactValue({ output: long }, before, memo.for(before)).output.includes(secret), true);
    const after = new SecretMatcher([secret]);
    const redacted = redactValue({ output: long }, after, memo.for(after)).output;
    assert.ok(!redacted.includes(secret), 'the new secret is redacted');
    assert.ok(redacted.includes(REDACTED));
  });

  it('gives the same answer from memory as when it looks', () => {
    const memo = new RedactedTexts();
    const matcher = new SecretMatcher([secret]);
    const first = redactValue([long, { nested: long }], matcher, memo.for(matcher));
    const second = redactValue([long, { nested: long }], matcher, memo.for(matcher));
    assert.deepEqual(second, first);
    assert.deepEqual(first, redactValue([long, { nested: long }], matcher));
  });
});
