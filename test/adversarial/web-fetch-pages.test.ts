/**
 * Issue 36, item 2: pages built to make the Markdown conversion slow or wrong, each at the 5 MB
 * web_fetch reads at most. Before the prescan, unclosed <script> tags made the plain-text fallback
 * quadratic, and a page of empty tags or of one long text took from 8 s to a minute; each now
 * costs one pass and a bounded tree, and says what was left out.
 */
import assert from 'node:assert/strict';
import { htmlToMarkdown } from '../../src/node/web/html-to-markdown';
import { MAX_ELEMENTS } from '../../src/node/web/html-prescan';

const FIVE_MB = 5 * 1024 * 1024;
const convert = (page: string, maxChars = 50_000) => htmlToMarkdown.toMarkdown(page, 'https://docs.example/', maxChars);

describe('web_fetch conversion of hostile pages (adversarial)', function () {
  this.timeout(30_000);

  it('a page of 600,000 unclosed <script> tags', () => {
    const page = `<html><body><p>before</p>${'<script>'.repeat(FIVE_MB / 8)}</body></html>`;
    const result = convert(page);
    assert.match(result.markdown, /before/);
    assert.doesNotMatch(result.markdown, /script/);
  });

  it('a page nested past the limit whose text is full of "<" that start no tag', () => {
    const page = `<html><body>${'<div>'.repeat(500)}${'<1'.repeat(FIVE_MB / 2)}</body></html>`;
    const result = convert(page);
    assert.match(result.note ?? '', /nests elements 502 levels deep/);
    assert.ok(result.markdown.startsWith('<1<1<1'));
    assert.ok(result.markdown.length < 100_000, 'only about the characters asked for');
  });

  it('a page that is one 5 MB text', () => {
    const result = convert(`<html><body><main>${'word '.repeat(FIVE_MB / 5)}</main></body></html>`);
    assert.ok(result.markdown.length >= 49_000 && result.markdown.length < 100_000, `${result.markdown.length}`);
    assert.equal(result.textChars, FIVE_MB);
  });

  for (const [name, page] of [
    ['empty tags in <main>', `<html><body><main><p>start</p>${'<b></b>'.repeat(FIVE_MB / 7)}</main></body></html>`],
    ['empty tags, no <main>', `<html><body><p>start</p>${'<i></i>'.repeat(FIVE_MB / 7)}</body></html>`],
    [
      'elements nested 390 deep, over and over',
      `<html><body><main>${`${'<div>'.repeat(390)}x${'</div>'.repeat(390)}`.repeat(FIVE_MB / 4291)}</main></body></html>`,
    ],
  ] as const) {
    it(`a page of millions of elements: ${name}`, () => {
      const result = convert(page);
      assert.match(
        result.note ?? '',
        new RegExp(`more than ${MAX_ELEMENTS.toLocaleString('en-US')} elements: what follows them is not read`),
      );
    });
  }

  it('a tag whose quoted attribute never closes, and one that never ends', () => {
    assert.match(convert('<main><p>kept</p><a href="x>never closed').markdown, /^kept$/);
    assert.match(convert('<main><p>kept</p><a href=x').markdown, /^kept$/);
    assert.match(convert('<main><p>kept</p><!-- never closed <p>hidden</p>').markdown, /^kept$/);
  });
});
