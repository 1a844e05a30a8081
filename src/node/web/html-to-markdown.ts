/**
 * A fetched HTML page as Markdown (issue 36): linkedom builds the DOM, Readability keeps the
 * article (dropping menus, footers, ads), turndown writes Markdown. Loaded on first use only
 * (a module of its own in dist/, esbuild-config.mjs): activation never reads these libraries.
 * All three walk the tree recursively, so a page nested thousands of levels deep (a hostile
 * one) would overflow the stack: such a page, or one any step fails on, is shown as plain text
 * instead, with a note saying so.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import type { ConvertedPage, HtmlConverter } from '../../core/web/web-fetch-ports';

/** Deeper than this, the page is read as plain text: real documentation pages nest a few dozen levels. */
export const MAX_NESTING = 400;

/** Elements that never have content or a closing tag. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

let turndown: TurndownService | undefined;

function markdownWriter(): TurndownService {
  if (turndown) return turndown;
  turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  // What a reader of the page never sees is not worth the model's context either.
  turndown.remove(['script', 'style', 'noscript', 'iframe', 'template', 'canvas', 'form', 'button']);
  turndown.remove((node) => node.nodeName.toLowerCase() === 'svg');
  return turndown;
}

export const htmlToMarkdown: HtmlConverter = {
  toMarkdown(html: string, url: string, maxChars = Number.POSITIVE_INFINITY): ConvertedPage {
    const depth = nestingDepth(html);
    if (depth > MAX_NESTING)
      return {
        markdown: plainText(html),
        note: `The page nests elements ${depth} levels deep (more than ${MAX_NESTING}): it is shown as plain text.`,
      };
    try {
      return convert(html, url, maxChars);
    } catch (error) {
      const why = error instanceof RangeError ? 'it is nested too deeply to convert' : 'it could not be converted';
      return { markdown: plainText(html), note: `The page is shown as plain text: ${why}.` };
    }
  },
};

function convert(html: string, url: string, maxChars: number): ConvertedPage {
  const { document } = parseHTML(html);
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
      keepClasses: false,
      serializer: (element: Node) => element,
    }).parse();
    root = (article?.content as unknown as Element | null | undefined) ?? document.body ?? document.documentElement;
    heading = article?.title?.trim() || title;
  }
  if (!root) return { markdown: plainText(html) };
  const textChars = root.textContent?.length ?? 0;
  const shortened = textChars > maxChars && keepFirstText(root, maxChars);
  absoluteLinks(root, url);
  const markdown = markdownWriter()
    .turndown(root as unknown as HTMLElement)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return {
    ...(heading ? { title: heading } : {}),
    markdown: markdown || plainText(html),
    ...(shortened ? { textChars } : {}),
  };
}

/**
 * Drops what follows the first `maxChars` characters of text: the model is shown no more than
 * that, and converting the rest of a large page was most of the time it took.
 */
function keepFirstText(root: Element, maxChars: number): boolean {
  let budget = maxChars;
  let cut = false;
  for (let element: Element | null = root; element;) {
    let crossing: Element | null = null;
    for (const child of Array.from(element.children)) {
      if (crossing || budget <= 0) {
        child.remove();
        cut = true;
        continue;
      }
      const length = child.textContent?.length ?? 0;
      // The child that crosses the limit is kept and trimmed the same way, one level down.
      if (length > budget) crossing = child;
      else budget -= length;
    }
    element = crossing;
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

/** The deepest nesting of elements in `html`, by a scan of its tags (no tree is built). */
export function nestingDepth(html: string): number {
  const tags = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g;
  let depth = 0;
  let deepest = 0;
  for (let match = tags.exec(html); match; match = tags.exec(html)) {
    const name = match[2]!.toLowerCase();
    if (VOID.has(name) || match[3] === '/') continue;
    if (match[1] === '/') depth = Math.max(0, depth - 1);
    else if (++depth > deepest) deepest = depth;
  }
  return deepest;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The page's text without markup, scripts or styles: built with regular expressions, no tree. */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/(p|div|h[1-6]|li|tr|section|article|pre|blockquote)\s*>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#')) {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
}
