import assert from 'node:assert/strict';
import { blocksToHtml, markdownToHtml, splitStreamingMarkdown } from '../../../webview/shared/markdown-blocks';

/**
 * What StreamingMarkdown does, without a DOM: the text grows by `chunk` characters at a time;
 * finished blocks are rendered once, the open ones again at each step.
 */
function streamed(text: string, chunk: number): { html: string; maxOpenChars: number; renderedChars: number } {
  let frozen = 0;
  let html = '';
  let open: string;
  let maxOpenChars = 0;
  let renderedChars = 0;
  for (let end = chunk; ; end += chunk) {
    const source = text.slice(0, Math.min(end, text.length));
    const split = splitStreamingMarkdown(source.slice(frozen));
    html += blocksToHtml(split.stable);
    frozen += split.stableLength;
    open = blocksToHtml(split.open);
    maxOpenChars = Math.max(maxOpenChars, source.length - frozen);
    renderedChars += source.length - frozen + split.stableLength;
    if (end >= text.length) break;
  }
  return { html: html + open, maxOpenChars, renderedChars };
}

const ANSWER = [
  '# Plan',
  '',
  'First I read **the file** and `the tests`. Then:',
  '',
  '1. run them',
  '',
  '2. fix the failing one',
  '3. run them again',
  '',
  'Setext heading',
  '---',
  '',
  '- a',
  '- b',
  '',
  '  continued item b',
  '',
  '```ts',
  'function greet(name: string) {',
  '',
  '  return `hi ${name}`;',
  '}',
  '```',
  'Text right after the fence.',
  '',
  '| file | change |',
  '|------|--------|',
  '| a.ts | edited |',
  '| b.ts | new |',
  '',
  '> a quote',
  'lazily continued',
  '',
  '    indented code',
  '',
  '    more of it',
  '',
  '***',
  '',
  'Last paragraph with a [link](https://example.com) and ![img](https://evil.example/x.png).',
].join('\n');

describe('streaming markdown blocks', () => {
  it('renders a streamed answer exactly as rendering it whole, whatever the chunk size', () => {
    const whole = markdownToHtml(ANSWER);
    for (const chunk of [1, 2, 3, 7, 16, 64]) assert.equal(streamed(ANSWER, chunk).html, whole, `chunk ${chunk}`);
  });

  it('re-renders only the open blocks: the work per update does not grow with the answer', () => {
    const paragraphs = Array.from({ length: 400 }, (_, index) => `Paragraph ${index} with some words in it.`);
    const text = paragraphs.join('\n\n');
    const { html, maxOpenChars, renderedChars } = streamed(text, 8);
    assert.equal(html, markdownToHtml(text));
    assert.ok(maxOpenChars < 120, `open part up to ${maxOpenChars} characters`);
    // Re-rendering the whole text at each step would touch ~text²/(2·chunk) characters.
    const quadratic = (text.length * text.length) / 16;
    assert.ok(renderedChars < quadratic / 50, `${renderedChars} characters rendered vs ${quadratic}`);
  });

  it('keeps the last two blocks open: a list item may still join the list before it', () => {
    const split = splitStreamingMarkdown('Intro\n\n1. a\n\n2');
    assert.deepEqual(
      split.stable.map((token) => token.type),
      ['paragraph', 'space'],
    );
    assert.deepEqual(
      split.open.map((token) => token.type),
      ['list', 'space', 'paragraph'],
    );
    assert.equal(split.stableLength, 'Intro\n\n'.length);
    assert.deepEqual(splitStreamingMarkdown('only one block').stable, []);
  });

  it('keeps text with carriage returns open (offsets would not match the lexer)', () => {
    const split = splitStreamingMarkdown('a\r\n\r\nb\r\n\r\nc\r\n\r\nd');
    assert.deepEqual(split.stable, []);
    assert.equal(split.stableLength, 0);
    assert.ok(split.open.length > 0);
  });

  it('flags constructs that span blocks, so the finished answer is rendered whole once', () => {
    assert.equal(splitStreamingMarkdown('see [x]\n\n[x]: https://example.com').spansBlocks, true);
    assert.equal(splitStreamingMarkdown('<div>\n\ninside\n\n</div>').spansBlocks, true);
    assert.equal(splitStreamingMarkdown(ANSWER).spansBlocks, false);
  });
});
