/**
 * A fetched HTML page as Markdown (issue 36): linkedom builds the DOM, Readability keeps the
 * article (dropping menus, footers, ads), turndown writes Markdown. Loaded on first use only
 * (a module of its own in dist/, esbuild-config.mjs): activation never reads these libraries.
 *
 * Fast on a large page because little of it becomes a tree: html-prescan.ts leaves out, from the
 * text, what is never shown (scripts, styles, SVG, comments), what comes before the page's main
 * content element, and the text past what the model is given; turndown gets the tree itself (no
 * copy) with code blocks reduced to their text. All three libraries walk the tree recursively, so
 * a page nested thousands of levels deep (a hostile one) would overflow the stack: such a page,
 * or one any step fails on, is shown as plain text instead, with a note saying so.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import type { ConvertedPage, HtmlConverter } from '../../core/web/web-fetch-ports';
import { MAX_ELEMENTS, plainText, prescanHtml, type PrescannedHtml } from './html-prescan';
import { addTableRules, dropHeadingAnchors, escapeMarkdown, normalizeCodeBlocks } from './markdown-rules';

export { plainText } from './html-prescan';

/** Deeper than this, the page is read as plain text: real documentation pages nest a few dozen levels. */
export const MAX_NESTING = 400;

const TEXT_NODE = 3;

/**
 * Text kept past the characters asked for, so that the prescan's count (which may differ a little
 * from the tree's) never leaves the model short: the exact cut is made on the tree. Without a
 * content element Readability chooses the article from what is kept, menus and sidebars before it
 * included, so more is kept.
 */
const keptChars = (maxChars: number) => ({
  keepContentChars: maxChars * 1.25 + 4_096,
  keepTextChars: maxChars * 1.5 + 20_000,
});

let turndown: TurndownService | undefined;

function markdownWriter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  // What a reader of the page never sees is not worth the model's context either (most of it
  // is already left out before parsing). A <form> stays: some sites wrap the whole page in one.
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'template', 'canvas', 'button', 'select', 'input']);
  turndown.remove((node) => node.nodeName.toLowerCase() === 'svg');
  addTableRules(turndown);
  turndown.escape = escapeMarkdown;
  return turndown;
}

export const htmlToMarkdown: HtmlConverter = {
  toMarkdown(html: string, url: string, maxChars = Number.POSITIVE_INFINITY): ConvertedPage {
    const prepared = prescanHtml(html, keptChars(maxChars));
    const notes =
      prepared.shortened === 'elements'
        ? [`The page has more than ${MAX_ELEMENTS.toLocaleString('en-US')} elements: what follows them is not read.`]
        : [];
    let page: ConvertedPage;
    if (prepared.depth > MAX_NESTING) {
      page = asPlainText(prepared);
      notes.push(
        `The page nests elements ${prepared.depth} levels deep (more than ${MAX_NESTING}): it is shown as plain text.`,
      );
    } else {
      try {
        page = convert(prepared, url, maxChars);
      } catch (error) {
        const why = error instanceof RangeError ? 'it is nested too deeply to convert' : 'it could not be converted';
        page = asPlainText(prepared);
        notes.push(`The page is shown as plain text: ${why}.`);
      }
    }
    return notes.length ? { ...page, note: notes.join(' ') } : page;
  },
};

function asPlainText(prepared: PrescannedHtml): Pick<ConvertedPage, 'markdown' | 'textChars'> {
  return {
    markdown: plainText(prepared.html),
    ...(prepared.shortened === 'text' ? { textChars: prepared.textChars } : {}),
  };
}

function convert(prepared: PrescannedHtml, url: string, maxChars: number): ConvertedPage {
  const { document } = parseHTML(prepared.html);
  const title = document.title?.trim() || undefined;
  // A page that marks its content (<main>, <article>: most documentation sites) is taken at its
  // word; Readability's scoring, slow on large pages, is for the pages that do not.
  let root = document.querySelector('main, [role="main"], article') as Element | null;
  let heading = title;
  if (root) {
    for (const element of Array.from(root.querySelectorAll('nav, aside, header, footer, [role="navigation"]')))
      element.remove();
  } else {
    // Readability changes the document it reads; the fallback works from the text, not the tree.
    const article = new Readability(document as unknown as Document, {
      charThreshold: 200,
      keepClasses: true,
      serializer: (element: Node) => element,
    }).parse();
    root = (article?.content as unknown as Element | null | undefined) ?? document.body ?? document.documentElement;
    heading = article?.title?.trim() || title;
  }
  if (!root) return asPlainText(prepared);
  const rootChars = root.textContent?.length ?? 0;
  const shortened = rootChars > maxChars && keepFirstText(root, maxChars);
  normalizeCodeBlocks(root);
  dropHeadingAnchors(root);
  absoluteLinks(root, url);
  // turndown copies the tree it is given before changing it; this one is ours and thrown away after.
  Object.defineProperty(root, 'cloneNode', { value: () => root, configurable: true });
  const markdown = markdownWriter()
    .turndown(root as unknown as HTMLElement)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return {
    ...(heading ? { title: heading } : {}),
    markdown: markdown || plainText(prepared.html),
    ...(shortened ? { textChars: Math.max(rootChars, prepared.shortened === 'text' ? prepared.textChars : 0) } : {}),
  };
}

/**
 * Drops what follows the first `maxChars` characters of text: the model is shown no more than
 * that, and converting the rest of a large page was most of the time it took.
 */
function keepFirstText(root: Element, maxChars: number): boolean {
  let budget = maxChars;
  let cut = false;
  for (let parent: Node | null = root; parent;) {
    let crossing: Node | null = null;
    for (const child of Array.from(parent.childNodes)) {
      if (crossing || budget <= 0) {
        child.parentNode?.removeChild(child);
        cut = true;
        continue;
      }
      const length = child.textContent?.length ?? 0;
      if (length <= budget) budget -= length;
      else if (child.nodeType === TEXT_NODE) {
        // One long text (a page may be nothing else): its start is kept.
        (child as Text).data = (child as Text).data.slice(0, budget);
        budget = 0;
        cut = true;
      } else crossing = child; // Kept, and trimmed the same way one level down.
    }
    parent = crossing;
  }
  return cut;
}

/** Links and images as full URLs, so the model can fetch what a page links to. */
function absoluteLinks(root: Element, base: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of Array.from(root.querySelectorAll(selector))) {
      try {
        element.setAttribute(attribute, new URL(element.getAttribute(attribute) ?? '', base).href);
      } catch {
        // Not a URL relative to the page's: left as written.
      }
    }
  }
}
