import assert from 'node:assert/strict';
import { capOutput, OutputCollector, stripTerminalEscapes } from '../../../../src/core/text/terminal-output';

describe('terminal output', () => {
  it('strips shell-integration OSC sequences and colours', () => {
    assert.equal(stripTerminalEscapes('\x1b]633;C\x07probe-42\r\n'), 'probe-42\n');
    assert.equal(stripTerminalEscapes('\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m'), 'red and green');
    assert.equal(stripTerminalEscapes('\x1b]0;title\x1b\\text'), 'text');
  });

  it('normalises carriage returns', () => {
    assert.equal(stripTerminalEscapes('a\r\nb\rc'), 'a\nb\nc');
  });

  it('keeps the end of long output and says how much was cut', () => {
    const capped = capOutput('x'.repeat(100) + 'END', 10);
    assert.ok(capped.endsWith('xxxxxxxEND'));
    assert.match(capped, /93 characters of earlier output omitted/);
    assert.equal(capOutput('short', 10), 'short');
  });

  it('collects endless output in bounded memory, keeping the whole last part and counting what went', () => {
    const collector = new OutputCollector(10_000);
    collector.push('a'.repeat(65_536)); // one pipe-sized chunk, far over the cap
    collector.push('b'.repeat(9_000));
    const result = collector.result();
    assert.equal(result, `[… 64536 characters of earlier output omitted …]\n${'a'.repeat(1_000)}${'b'.repeat(9_000)}`);
    for (let index = 0; index < 1_000; index++) collector.push('c'.repeat(1_000));
    assert.match(collector.result(), /^\[… 1064536 characters of earlier output omitted …\]\nc{10000}$/);
  });
});
