/**
 * Issue 36, item 2: what web_fetch makes of a documentation page. A real site's page (scripts,
 * SVG icons, a header menu, a sidebar, nested sections, highlighted code, tables, footers) must
 * come out as Markdown that keeps the headings, code blocks with their language, tables, lists
 * and absolute links, and drops the chrome around them; also when only the first part is read.
 */
import assert from 'node:assert/strict';
import { htmlToMarkdown, plainText } from '../../../../src/node/web/html-to-markdown';
import { DOCS_PAGE_URL, realisticDocsPage } from '../../../fixtures/web/docs-page';

describe('web_fetch: a documentation page to Markdown', () => {
  const page = realisticDocsPage(300 * 1024);

  for (const semantic of [true, false]) {
    it(`keeps the content and drops the chrome (${semantic ? 'a page with <main>' : 'no <main>: Readability'})`, () => {
      const { markdown, title } = htmlToMarkdown.toMarkdown(
        realisticDocsPage(300 * 1024, { semantic }),
        DOCS_PAGE_URL,
        Number.POSITIVE_INFINITY,
      );
      assert.equal(title, 'Methods — Example Library 4.2 documentation');
      assert.match(markdown, /^## Method number 0$/m, 'section headings');
      assert.match(markdown, /^### Syntax$/m, 'nested headings, without the anchor icon');
      assert.match(
        markdown,
        /^```js\nconst result3 = items\.method3\(\(item\) => item \* 2\);\nconsole\.log\(result3\); \/\/ \[2, 4, 6\]\n```$/m,
        'a highlighted code block as its text, fenced, with its language',
      );
      assert.match(
        markdown,
        /^\| Browser \| Since \| Notes \|\n\| --- \| --- \| --- \|\n\| Firefox \| 1\.5 \| Full support \|\n\| Chrome \| 1 \| Full support \|\n\| Safari \| 3 \| See \[compatibility\]\(https:\/\/docs\.example\/en\/latest\/compat\.html#safari\) \|$/m,
        'a table as a Markdown table',
      );
      assert.match(
        markdown,
        /\[Type2\]\(https:\/\/docs\.example\/en\/latest\/types\/type2\.html#Type2\)/,
        'absolute links',
      );
      assert.match(markdown, /^-\s+Second parameter: the value of `this`\.\n\s+-\s+Optional\.$/m, 'nested lists');
      assert.match(markdown, /`method1\(\)` function/, 'inline code');
      for (const chrome of [
        /Guide chapter/,
        /Footer link/,
        /Search docs/,
        /We use cookies/,
        /dataLayer|gtag|localStorage/,
        /stroke-width|<svg/,
        /generated from/,
        /Edit this page/,
        /¶/,
      ])
        assert.doesNotMatch(markdown, chrome);
    });
  }

  it('reads only about the first characters asked for, and says how long the page is', () => {
    const whole = htmlToMarkdown.toMarkdown(page, DOCS_PAGE_URL, Number.POSITIVE_INFINITY);
    const first = htmlToMarkdown.toMarkdown(page, DOCS_PAGE_URL, 10_000);
    assert.ok(first.markdown.length >= 10_000, `at least what was asked for (${first.markdown.length})`);
    assert.ok(first.markdown.length < whole.markdown.length / 2);
    assert.ok(whole.markdown.startsWith(first.markdown.slice(0, 9_000)), 'the same start as the whole page');
    assert.ok(first.textChars! > 40_000, `the page's text counted to its end (${first.textChars})`);
    assert.equal(whole.textChars, undefined);
  });

  it('keeps a <form> that wraps the whole page, and code blocks named the ways sites name them', () => {
    const { markdown } = htmlToMarkdown.toMarkdown(
      '<html><body><form id="aspnetForm"><main><h1>Guide</h1><p>Read this first, it matters.</p>' +
        '<div class="highlight-python3 notranslate"><div class="highlight"><pre><span class="k">import</span> os</pre></div></div>' +
        '<pre class="brush: csharp">var x = 1;</pre>' +
        '<div class="highlight highlight-source-rust"><pre>fn main() {}</pre></div>' +
        '<pre><code data-lang="go">package main</code></pre>' +
        '<pre>no language &lt;here&gt;</pre></main></form></body></html>',
      'https://docs.example/',
    );
    assert.match(markdown, /Read this first/);
    assert.match(markdown, /```python3\nimport os\n```/);
    assert.match(markdown, /```csharp\nvar x = 1;\n```/);
    assert.match(markdown, /```rust\nfn main\(\) \{\}\n```/);
    assert.match(markdown, /```go\npackage main\n```/);
    assert.match(markdown, /```\nno language <here>\n```/);
  });

  it('gives plain text without scripts, styles or comments', () => {
    assert.equal(
      plainText('<p>One &amp; two</p><script>var x = "<p>";</script><!-- note --><style>p{}</style><div>three</div>'),
      'One & two\nthree',
    );
  });
});
