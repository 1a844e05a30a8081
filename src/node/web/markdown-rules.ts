/**
 * What web_fetch does to a page's tree before turndown writes it, and the rules it adds to
 * turndown (issue 36): documentation is mostly code blocks and tables, and turndown alone writes
 * a highlighted code block without its language (token by token, escaped) and a table as its
 * cells run together.
 */
import type TurndownService from 'turndown';

/** Class names and attributes that name a code block's language, as Prism, Pygments, Sphinx, highlight.js, Chroma and MDN write them. */
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)|(?:^|\s)brush:\s*([\w+#.-]+)/i;
/** Sphinx and GitHub also name what is not a language. */
const NOT_A_LANGUAGE = new Set(['default', 'none', 'text', 'plain', 'plaintext', 'notranslate']);

/**
 * Each `<pre>` becomes `<pre><code class="language-…">its text</code></pre>`: turndown then
 * writes a fenced block with the language, and does not walk (and escape) every token's span.
 */
export function normalizeCodeBlocks(root: Element): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const language = codeLanguage(pre);
    const text = pre.textContent ?? '';
    const code = pre.ownerDocument.createElement('code');
    if (language) code.setAttribute('class', `language-${language}`);
    code.textContent = text;
    pre.replaceChildren(code);
  }
}

function codeLanguage(pre: Element): string | undefined {
  const code = pre.firstElementChild?.nodeName === 'CODE' ? pre.firstElementChild : undefined;
  const candidates: Array<Element | null | undefined> = [
    code,
    pre,
    pre.parentElement,
    pre.parentElement?.parentElement,
  ];
  for (const element of candidates) {
    if (!element) continue;
    const named = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
    if (named && /^[\w+#.-]{1,30}$/.test(named) && !NOT_A_LANGUAGE.has(named.toLowerCase())) return named.toLowerCase();
    const match = LANGUAGE_CLASS.exec(element.getAttribute('class') ?? '');
    const language = (match?.[1] ?? match?.[2])?.toLowerCase();
    if (language && !NOT_A_LANGUAGE.has(language)) return language;
  }
  return undefined;
}

/**
 * A heading's own anchor link ("¶", "#", "§", or a blank one): a pointer for the page's reader,
 * noise in the model's Markdown.
 */
export function dropHeadingAnchors(root: Element): void {
  for (const link of Array.from(
    root.querySelectorAll(
      'h1 a[href^="#"], h2 a[href^="#"], h3 a[href^="#"], h4 a[href^="#"], h5 a[href^="#"], h6 a[href^="#"]',
    ),
  )) {
    const text = (link.textContent ?? '').replace(/[\s\u200b]/g, '');
    if (text.length <= 1 && !/[\p{L}\p{N}]/u.test(text)) link.remove();
  }
}

/** Tables as GitHub-flavoured Markdown tables: the first row is the header. */
export function addTableRules(service: TurndownService): void {
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content) => ` ${cellText(content)} |`,
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = `\n|${content}`;
      if (!isFirstRow(node as Element)) return row;
      const cells = Array.from((node as Element).children).filter((cell) => /^T[HD]$/.test(cell.nodeName)).length;
      return `${row}\n|${' --- |'.repeat(Math.max(1, cells))}`;
    },
  });
  service.addRule('table', {
    filter: 'table',
    replacement: (content) => `\n\n${content.replace(/^\n+|\n+$/g, '')}\n\n`,
  });
}

/** A cell on one line: its breaks become spaces, its pipes are escaped. */
function cellText(content: string): string {
  return content
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

/** Whether `row` is its table's first: nothing before it in its section, nor a section before that. */
function isFirstRow(row: Element): boolean {
  if (row.previousElementSibling?.nodeName === 'TR') return false;
  const section = row.parentElement;
  if (!section || section.nodeName === 'TABLE') return true;
  for (let before = section.previousElementSibling; before; before = before.previousElementSibling)
    if (/^(THEAD|TBODY|TFOOT|TR)$/.test(before.nodeName)) return false;
  return true;
}

/** Characters turndown escapes wherever they are in a text. */
const ESCAPED_ANYWHERE = /[\\*`[\]_]/g;
/** What turndown escapes at the start of a text: it would begin a list, a heading, a rule, a quote or a fence. */
const ESCAPED_AT_START = /^(?:-|\+ |=+|#{1,6} |~~~|>|\d+\. )/;

/**
 * turndown's escaping, the same result in two passes instead of thirteen (one regular expression
 * each, for every text of the page): on a large page it was a fifth of the conversion.
 */
export function escapeMarkdown(text: string): string {
  const escaped = text.replace(ESCAPED_ANYWHERE, '\\$&');
  return escaped.replace(ESCAPED_AT_START, (start) => (/^\d/.test(start) ? `${start.slice(0, -2)}\\. ` : `\\${start}`));
}
