/**
 * Decides, for each span the scanner held back (text-call-scanner.ts), whether it sits in
 * prose — where a tool call written into the text is a call — or in code, raw HTML or
 * reasoning, where it is an example (or hidden from the user) and never runs.
 *
 * One judge: markdown-it, a CommonMark parser. Each span is replaced by a marker (a random
 * nonce, so the answer cannot forge one) and the answer is parsed whole; a marker runs only when
 * it lands in a plain text token. In a code span, an indented or fenced code block (at any depth
 * of lists and quotes), raw HTML (a block, a tag, a comment), an image's description, a link's
 * destination or title, or a link reference definition (which shows nothing), it does not. Raw
 * HTML elements whose content is code or hidden (`<pre>`, `<code>`, `<details>`, `<script>`…)
 * hide the text after their opening tag until they are closed, as a browser would show it.
 *
 * Reasoning is not markdown: a `<think>` block (or harmony's analysis channel) at the start of
 * the answer runs to its first closer, and everything before a lone closer is reasoning (some
 * chat templates open the block in the prompt). Later in the answer, an opener in prose starts
 * reasoning that runs to the next closer in prose.
 */
import { randomBytes } from 'node:crypto';
import MarkdownIt from 'markdown-it';

export type DocumentPiece =
  | { kind: 'text'; text: string }
  | { kind: 'tagged'; source: string }
  /** A fenced JSON block: the opening line, the body, and what closed it. */
  | { kind: 'fenced'; opener: string; body: string; closer: string };

type Token = MarkdownIt.Token;

/**
 * Nested deeper than this (lists in quotes in lists…), markdown-it stops reading the rest of
 * the answer; an answer that reaches it runs nothing. It also bounds the parser's recursion.
 */
const BLOCK_NESTING = 100;
/**
 * Links and images inside one another: no prose goes past a few. The parser's work on runs of
 * `![` or `[` grows with this bound, so inline text gets a lower one than blocks.
 */
const INLINE_NESTING = 20;
/**
 * An answer longer than this (far past any model's output limit) is not read for calls at all:
 * below it, parsing the most hostile text measured stays under a second
 * (test/adversarial/text-calls-in-code.test.ts).
 */
export const MAX_DOCUMENT_CHARS = 512 * 1024;

const REASONING_OPEN = /<think(?:ing)?>|<\|channel\|>\s*analysis\b/gi;
const REASONING_CLOSE = /<\/think(?:ing)?>|<\|end\|>|<\|start\|>|<\|channel\|>(?!\s*analysis\b)/gi;
const LEADING_REASONING = /^\s*(?:<\|start\|>\s*assistant\s*)?(?:<think(?:ing)?>|<\|channel\|>\s*analysis\b)/i;
/** Elements whose content is code, or hidden until the user opens it. */
const HIDING_ELEMENT =
  /<(\/?)(code|pre|kbd|samp|tt|var|textarea|script|style|xmp|listing|plaintext|template|details)\b[^>]*?(\/?)>/gi;

let parser: MarkdownIt.MarkdownIt | undefined;

/** CommonMark with GFM tables and raw HTML recognised (so that HTML holding code is seen). */
function markdown(): MarkdownIt.MarkdownIt {
  if (parser) return parser;
  parser = new MarkdownIt('default', { html: true, linkify: false, typographer: false, maxNesting: BLOCK_NESTING });
  // One option bounds both phases: set it for each as it starts.
  parser.core.ruler.before('block', 'block_nesting', (state) => {
    state.md.options.maxNesting = BLOCK_NESTING;
  });
  parser.core.ruler.before('inline', 'inline_nesting', (state) => {
    state.md.options.maxNesting = INLINE_NESTING;
  });
  return parser;
}

/**
 * For each tagged or fenced piece, in order: true when it sits in prose outside reasoning (for
 * a fenced piece: when it is a top-level fenced block of its own outside reasoning).
 */
export function spansOutsideCode(pieces: readonly DocumentPiece[]): boolean[] {
  const nonce = randomBytes(8).toString('hex');
  const spanCount = pieces.filter((piece) => piece.kind !== 'text').length;
  const verdicts = new Array<boolean>(spanCount).fill(false);
  // c: a span; o / e: where reasoning opens / closes.
  const mark = (kind: 'c' | 'o' | 'e', index: number) => `\uE000${nonce}${kind}${index}\uE001`;
  const marker = new RegExp(`\uE000${nonce}([coe])(\\d+)\uE001`, 'g');
  // In text, an HTML comment CommonMark does not take for one (it does not close in the same
  // paragraph): a browser hides everything after it.
  const inText = new RegExp(`${marker.source}|(<!--)|(-->)`, 'g');

  let index = 0;
  const parts: string[] = [];
  for (const piece of pieces) {
    if (piece.kind === 'text') parts.push(piece.text);
    else if (piece.kind === 'tagged') parts.push(mark('c', index++));
    else parts.push(`${piece.opener}${mark('c', index++)}\n${piece.closer}`);
  }
  let source = parts.join('');
  if (source.length > MAX_DOCUMENT_CHARS) return verdicts;

  // Reasoning first: it is not markdown, and whatever it holds never runs.
  source = source.slice(leadingReasoning(source));
  let reasoningMarks = 0;
  source = source
    .replace(REASONING_OPEN, () => mark('o', reasoningMarks++))
    .replace(REASONING_CLOSE, () => mark('e', reasoningMarks++));

  let tokens: Token[];
  try {
    tokens = markdown().parse(source, {});
  } catch {
    // Whatever the parser could not read, nothing in it is taken for a call.
    return verdicts;
  }

  const prose = new Set<number>();
  const fencedAlone = new Set<number>();
  let reasoning = false;
  /** Open elements that hide what follows them, by name. */
  const hiding = new Map<string, number>();
  let comment = false;
  const hidden = () => hiding.size > 0 || comment;
  const html = (content: string) => {
    for (const [, closing, name, selfClosing] of content.matchAll(HIDING_ELEMENT)) {
      const key = name!.toLowerCase();
      if (selfClosing) continue;
      const depth = (hiding.get(key) ?? 0) + (closing ? -1 : 1);
      if (depth > 0) hiding.set(key, depth);
      else hiding.delete(key);
    }
  };
  const text = (content: string) => {
    for (const [, kind, number, commentOpen, commentClose] of content.matchAll(inText)) {
      if (commentOpen) comment = true;
      else if (commentClose) comment = false;
      else if (hidden()) continue;
      else if (kind === 'o') reasoning = true;
      else if (kind === 'e') reasoning = false;
      else if (!reasoning) prose.add(Number(number));
    }
  };

  for (const token of tokens) {
    if (token.level >= BLOCK_NESTING - 1) return verdicts;
    switch (token.type) {
      case 'inline':
        for (const child of token.children ?? []) {
          if (child.level >= INLINE_NESTING - 1) return verdicts;
          if (child.type === 'text') text(child.content);
          else if (child.type === 'html_inline') html(child.content);
        }
        break;
      case 'html_block':
        html(token.content);
        break;
      case 'fence': {
        const alone = new RegExp(`^\\s*\uE000${nonce}c(\\d+)\uE001\\s*$`).exec(token.content);
        if (alone && token.level === 0 && !reasoning && !hidden()) fencedAlone.add(Number(alone[1]));
        break;
      }
      default:
      // code_block, the opening and closing of containers: nothing that runs.
    }
  }

  index = 0;
  for (const piece of pieces) {
    if (piece.kind === 'text') continue;
    verdicts[index] = piece.kind === 'fenced' ? fencedAlone.has(index) : prose.has(index);
    index++;
  }
  return verdicts;
}

/** Where the answer's leading reasoning ends (0 when it has none). */
function leadingReasoning(text: string): number {
  const leading = LEADING_REASONING.exec(text);
  REASONING_CLOSE.lastIndex = leading?.[0].length ?? 0;
  const close = REASONING_CLOSE.exec(text);
  REASONING_CLOSE.lastIndex = 0;
  const closeEnd = close ? close.index + close[0].length : -1;
  if (leading) return close ? closeEnd : text.length;
  REASONING_OPEN.lastIndex = 0;
  const open = REASONING_OPEN.exec(text);
  REASONING_OPEN.lastIndex = 0;
  // A close with no open before it: the template opened the block in the prompt.
  return close && (!open || open.index > close.index) ? closeEnd : 0;
}
