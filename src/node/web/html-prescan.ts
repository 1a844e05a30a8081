/**
 * One pass over a fetched page's HTML before any tree is built (issue 36, web_fetch). Building
 * the DOM costs time and memory for every node, and on a real documentation page most nodes are
 * never shown: scripts, styles, inline SVG icons, comments, the menus before the content, and the
 * part of the text past what the model is given. This pass finds them in the text and leaves
 * them out, so the parser, Readability and turndown see only what they might keep.
 *
 * Every step is linear in the page's length — a hostile page (unclosed scripts and comments,
 * thousands of nested tags) costs one scan: each search starts where the last one stopped.
 */

/** Elements whose content is never shown as text: dropped with everything in them. */
const DROPPED = ['script', 'style', 'svg', 'noscript', 'template', 'iframe', 'canvas'] as const;
/** Elements whose content is text, not markup, though it is shown: scanned to their end as text. */
const RAW_TEXT = ['title', 'textarea', 'xmp'] as const;

const DROPPED_SET = new Set<string>(DROPPED);
const CLOSING = new Map<string, RegExp>(
  [...DROPPED, ...RAW_TEXT].map((name) => [name, new RegExp(`</${name}[\\s/]*>`, 'gi')]),
);

/** Elements a highlighter wraps tokens in: inside a code block, only their text is kept. */
const INLINE = new Set('span a b i em strong font mark u s del ins sub sup small kbd samp var tt'.split(' '));

/**
 * Elements kept at most: a real documentation page has a few tens of thousands, and the time and
 * memory the tree takes grow with them (a hostile page of nothing but empty tags has millions).
 */
export const MAX_ELEMENTS = 60_000;

/** Elements laid out as blocks: white space between two of them is not shown. */
const BLOCKS = new Set(
  (
    'address article aside blockquote body dd details dialog div dl dt fieldset figcaption figure footer form ' +
    'h1 h2 h3 h4 h5 h6 head header hgroup hr html li main nav ol p section summary table tbody td tfoot th thead tr ul'
  ).split(' '),
);

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

const ENTITY = /&(?:#\d{1,8}|#[xX][0-9a-fA-F]{1,8}|[a-zA-Z][a-zA-Z0-9]{1,31});?/y;
const MAIN_ROLE = /\srole\s*=\s*["']?main\b/i;

export interface PrescanOptions {
  /** Characters of text after which the rest of the page is not kept (Infinity: keep it all). */
  keepTextChars: number;
  /**
   * When set, the page is kept from its first <main>, <article> or role="main" element on (when
   * it has one), and the text is counted from there up to this many characters instead.
   */
  keepContentChars?: number;
}

export interface PrescannedHtml {
  /** The HTML to build a tree from: the page without what is never shown, maybe shortened. */
  html: string;
  /** Whether `html` starts at the page's main content element. */
  fromContent: boolean;
  /** The deepest nesting of elements in `html`. */
  depth: number;
  /** Characters of text from where `html` starts to the end of the page (entities count as one). */
  textChars: number;
  /**
   * Why the end of the page was left out, if it was: its text is past the characters asked for,
   * or it has more than MAX_ELEMENTS elements before that.
   */
  shortened: false | 'text' | 'elements';
}

export function prescanHtml(page: string, options: PrescanOptions): PrescannedHtml {
  const kept: string[] = [];
  let keptFrom = 0;
  let keeping = true;
  let fromContent = false;
  let title: string | undefined;
  let depth = 0;
  let deepest = 0;
  let textChars = 0;
  let shortened: PrescannedHtml['shortened'] = false;
  let elements = 0;
  let inPre = false;

  /** The text from `from` to `to`, counted; the rest of the page is left out from where it passes the budget. */
  const keepText = (from: number, to: number): void => {
    if (to <= from) return;
    const before = textChars;
    textChars += textLength(page, from, to);
    const budget = fromContent ? options.keepContentChars! : options.keepTextChars;
    if (!keeping || textChars <= budget) return;
    // Cut inside the text (a page may be one long text): an entity counts as one character, so
    // cutting at this offset keeps at most the budget; never between the halves of a surrogate pair.
    let cut = from + Math.max(0, Math.floor(budget - before));
    if (cut > from && cut < to && isHighSurrogate(page.charCodeAt(cut - 1))) cut--;
    stopKeeping(Math.min(cut, to), 'text');
  };
  const stopKeeping = (at: number, why: 'text' | 'elements') => {
    kept.push(page.slice(keptFrom, at));
    keeping = false;
    shortened = why;
  };
  /** Leaves out `from`..`to` of the page (a comment, a script). */
  const leaveOut = (from: number, to: number) => {
    if (keeping) kept.push(page.slice(keptFrom, from));
    keptFrom = to;
  };
  const replace = (from: number, to: number, text: string) => {
    leaveOut(from, to);
    if (keeping) kept.push(text);
  };

  let at = 0;
  let afterBlock = false;
  for (let tag = nextTag(page, 0); tag; tag = nextTag(page, at)) {
    const betweenBlocks = afterBlock && tag.kind === 'tag' && BLOCKS.has(tag.name) && !inPre;
    afterBlock = false;
    // The line breaks and indentation between two blocks are no text, only nodes to build.
    if (betweenBlocks && isBlank(page, at, tag.start)) leaveOut(at, tag.start);
    else keepText(at, tag.start);
    if (tag.kind !== 'tag') {
      // A comment, or a tag never closed: a parser drops it (to the end of the page for the latter).
      const close = tag.kind === 'comment' ? page.indexOf('-->', tag.start + 2) : -1;
      at = close === -1 ? page.length : close + 3;
      leaveOut(tag.start, at);
      continue;
    }
    at = tag.end;
    const { name, closing } = tag;
    if (inPre) {
      // A code block is shown as its text: the span around every token a highlighter adds is
      // most of a documentation page's elements. Its <code> stays (it may name the language).
      // Any other closing tag (a </div> around the block) ends it, as it would end the <pre>.
      if (name === 'pre') inPre = !closing;
      else if (name === 'br') replace(tag.start, tag.end, '\n');
      else if (INLINE.has(name)) {
        leaveOut(tag.start, tag.end);
        continue;
      } else if (closing && name !== 'code') inPre = false;
    } else if (name === 'pre' && !closing) inPre = true;
    const closer = closing ? undefined : CLOSING.get(name);
    if (closer) {
      closer.lastIndex = tag.end;
      const found = closer.exec(page);
      const textEnd = found ? found.index : page.length;
      const end = found ? closer.lastIndex : page.length;
      if (DROPPED_SET.has(name)) {
        leaveOut(tag.start, end);
        at = end;
        continue;
      }
      if (name === 'title' && title === undefined) title = page.slice(tag.end, textEnd);
      // Raw text: its content is text (no tags in it), its closing tag is skipped.
      keepText(tag.end, textEnd);
      at = end;
      continue;
    }
    if (
      options.keepContentChars !== undefined &&
      !fromContent &&
      keeping &&
      !closing &&
      (name === 'main' || name === 'article' || MAIN_ROLE.test(page.slice(tag.nameEnd, tag.end)))
    ) {
      // What comes before the content (the head, the header, menus, a sidebar) is not read.
      fromContent = true;
      kept.length = 0;
      kept.push(`<!DOCTYPE html><html><head><title>${title ?? ''}</title></head><body>`);
      keptFrom = tag.start;
      textChars = 0;
      elements = 0;
      depth = 0;
      deepest = 0;
    }
    afterBlock = BLOCKS.has(name);
    if (VOID.has(name) || tag.selfClosing) continue;
    if (closing) depth = Math.max(0, depth - 1);
    else if (keeping) {
      if (++depth > deepest) deepest = depth;
      if (++elements > MAX_ELEMENTS) stopKeeping(tag.start, 'elements');
    }
  }
  keepText(at, page.length);
  if (keeping) kept.push(page.slice(keptFrom));
  return { html: kept.join(''), fromContent, depth: deepest, textChars, shortened };
}

type Tag =
  | {
      kind: 'tag';
      start: number;
      /** Just past the `>`. */
      end: number;
      /** Lower case. */
      name: string;
      nameEnd: number;
      closing: boolean;
      selfClosing: boolean;
    }
  | { kind: 'comment' | 'unterminated'; start: number };

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** Space, tab, line feed, form feed or carriage return. */
const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

function isBlank(page: string, from: number, to: number): boolean {
  for (let index = from; index < to; index++) if (!isSpace(page.charCodeAt(index))) return false;
  return true;
}
/** The end of a tag's name: a space, `/` or `>`. */
const endsName = (code: number) => isSpace(code) || code === 47 || code === 62;

/**
 * The next tag or comment at or after `from`, read as an HTML tokenizer does: a quoted attribute
 * value may hold `>`. Each call reads forward only, so a page is read once however it is built.
 */
function nextTag(page: string, from: number): Tag | undefined {
  const length = page.length;
  for (let start = page.indexOf('<', from); start !== -1; start = page.indexOf('<', start + 1)) {
    if (page.startsWith('!--', start + 1)) return { kind: 'comment', start };
    const closing = page.charCodeAt(start + 1) === 47;
    let index = closing ? start + 2 : start + 1;
    if (!isLetter(page.charCodeAt(index))) continue;
    while (index < length && !endsName(page.charCodeAt(index))) index++;
    const nameEnd = index;
    for (; index < length; index++) {
      const code = page.charCodeAt(index);
      if (code === 62) break;
      if (code !== 61) continue;
      // After `=`: a quoted value runs to its closing quote, whatever it holds.
      let value = index + 1;
      while (value < length && isSpace(page.charCodeAt(value))) value++;
      const quote = page.charCodeAt(value);
      if (quote !== 34 && quote !== 39) continue;
      const close = page.indexOf(quote === 34 ? '"' : "'", value + 1);
      if (close === -1) return { kind: 'unterminated', start };
      index = close;
    }
    if (index >= length) return { kind: 'unterminated', start };
    return {
      kind: 'tag',
      start,
      end: index + 1,
      name: page.slice(closing ? start + 2 : start + 1, nameEnd).toLowerCase(),
      nameEnd,
      closing,
      selfClosing: page.charCodeAt(index - 1) === 47,
    };
  }
  return undefined;
}

/** The characters `page.slice(from, to)` stands for as text: an entity is one character. */
function textLength(page: string, from: number, to: number): number {
  let length = to - from;
  for (let at = page.indexOf('&', from); at !== -1 && at < to; at = page.indexOf('&', at + 1)) {
    ENTITY.lastIndex = at;
    if (ENTITY.test(page) && ENTITY.lastIndex <= to) length -= ENTITY.lastIndex - at - 1;
  }
  return length;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

const BREAKS = new Set([
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'tr',
  'section',
  'article',
  'pre',
  'blockquote',
]);

/** The page's text without markup, scripts or styles: built without a tree, in one pass. */
export function plainText(html: string): string {
  const page = prescanHtml(html, { keepTextChars: Number.POSITIVE_INFINITY }).html;
  const text: string[] = [];
  let at = 0;
  for (let tag = nextTag(page, 0); tag; tag = nextTag(page, at)) {
    text.push(page.slice(at, tag.start));
    if (tag.kind !== 'tag') {
      const close = tag.kind === 'comment' ? page.indexOf('-->', tag.start + 2) : -1;
      at = close === -1 ? page.length : close + 3;
      continue;
    }
    text.push((tag.closing && BREAKS.has(tag.name)) || tag.name === 'br' ? '\n' : ' ');
    at = tag.end;
  }
  text.push(page.slice(at));
  return text
    .join('')
    .replace(/&(#\d{1,8}|#x[0-9a-f]{1,8}|[a-z]{1,31});/gi, (entity, name: string) => {
      if (name.startsWith('#')) {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[name.toLowerCase()] ?? entity;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/ ?\n\s*/g, '\n')
    .trim();
}
