/**
 * web_fetch (issue 36): a 1 MB documentation page to Markdown — parsing (linkedom), the article
 * (Readability) and the conversion (turndown) only, no network. Target ≤ 200 ms. Printed by
 * `npm run bench`; nothing fails on speed.
 */
import { performance } from 'node:perf_hooks';
import { table } from './bench-table';
import { median } from './stats';
import { htmlToMarkdown } from '../../src/node/web/html-to-markdown';
import { DEFAULT_CHARS, MAX_CHARS } from '../../src/core/tools/builtin/web-fetch';

/** A documentation page of about `bytes`: headings, paragraphs with inline code and links, code blocks, lists, a table, a menu. */
export function documentationPage(bytes: number): string {
  const sections: string[] = [];
  for (let index = 0; sections.join('').length < bytes; index++)
    sections.push(
      `<section id="s${index}"><h2>Method number ${index}</h2>` +
        `<p>The <code>method${index}()</code> function returns a new <a href="/docs/type${index}">Type${index}</a> ` +
        'built from its arguments. It never changes the object it is called on, and it throws a ' +
        '<em>TypeError</em> when the callback is not a function. See the <strong>examples</strong> below.</p>' +
        `<pre><code class="language-js">const result = items.method${index}((item) =&gt; item * 2);\nconsole.log(result);</code></pre>` +
        '<ul><li>First parameter: the callback.</li><li>Second parameter: the value of <code>this</code>.</li></ul>' +
        '<table><tr><th>Browser</th><th>Since</th></tr><tr><td>Firefox</td><td>1.5</td></tr></table></section>',
    );
  const menu = Array.from({ length: 200 }, (_, index) => `<li><a href="/m/${index}">Menu ${index}</a></li>`).join('');
  return `<!doctype html><html><head><title>Reference</title></head><body><nav><ul>${menu}</ul></nav><main><article><h1>Reference</h1>${sections.join('')}</article></main><footer>Footer</footer></body></html>`;
}

export interface MarkdownTiming {
  label: string;
  bytes: number;
  markdownChars: number;
  firstMs: number;
  medianMs: number;
}

/** One page, converted as web_fetch does for `maxChars` (the text past it is not converted). */
export function measureWebFetchMarkdown(label: string, maxChars: number, rounds = 5): MarkdownTiming {
  const page = documentationPage(1024 * 1024);
  const times: number[] = [];
  let markdownChars = 0;
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    markdownChars = htmlToMarkdown.toMarkdown(page, 'https://docs.example/reference', maxChars).markdown.length;
    times.push(performance.now() - start);
  }
  return { label, bytes: Buffer.byteLength(page), markdownChars, firstMs: times[0]!, medianMs: median(times.slice(1)) };
}

export function printWebFetchBenchmarks(): void {
  console.log(
    '\nweb_fetch: a 1 MB documentation page to Markdown (linkedom + turndown, no network; medians of 4 after a first run)\n',
  );
  const rows = [
    measureWebFetchMarkdown(
      `as web_fetch reads it (default ${DEFAULT_CHARS.toLocaleString('en-US')} characters)`,
      DEFAULT_CHARS,
    ),
    measureWebFetchMarkdown(`as web_fetch reads it (max_chars ${MAX_CHARS.toLocaleString('en-US')})`, MAX_CHARS),
    measureWebFetchMarkdown('the whole page (for comparison)', Number.POSITIVE_INFINITY),
  ];
  console.log(
    table(
      ['conversion', 'page', 'Markdown', 'first run (ms)', 'median (ms)', 'target'],
      rows.map((row) => [
        row.label,
        `${(row.bytes / 1024).toFixed(0)} KB`,
        `${(row.markdownChars / 1024).toFixed(0)} KB`,
        row.firstMs.toFixed(0),
        row.medianMs.toFixed(0),
        '≤ 200 ms',
      ]),
    ),
  );
}

if (require.main === module) printWebFetchBenchmarks();
