import assert from 'node:assert/strict';
import { capOutput, stripTerminalEscapes } from '../../../../src/core/text/terminal-output';

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
});
