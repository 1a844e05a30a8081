/**
 * Decides, for each span the scanner held back (text-call-scanner.ts), whether it sits in
 * prose — where a tool call written into the text is a call — or in code or reasoning, where it
 * is an example and never runs. Code is what CommonMark calls code: fenced blocks (indented
 * inside list items and blockquotes too), indented code blocks, code spans (over line breaks
 * too), and raw HTML that holds code (`<pre>`, `<code>`, comments). Reasoning is a
 * `<think>…</think>` block (or everything before a lone `</think>`: some chat templates open it
 * in the prompt).
 *
 * How: each candidate span is replaced by a sentinel (a random nonce, so the answer cannot forge
 * one), the document is split into blocks by marked's block lexer, and code spans are found in
 * each block's inline text by the CommonMark rule (inline-code-spans.ts). marked's inline
 * lexer is not used: its emphasis rules are quadratic on hostile text. Where marked strays from
 * CommonMark (lazy lines in list items, see the report in issue 32), a plainer pairing of
 * backtick runs over the raw text is consulted too: a span runs only if every reading says prose.
 */
import { randomBytes } from 'node:crypto';
import { Lexer, type Token, type Tokens } from 'marked';
import { codeSpanRanges, inside, looseCodeSpanRanges, type Range } from './inline-code-spans';

export type DocumentPiece =
  | { kind: 'text'; text: string }
  | { kind: 'tagged'; source: string }
  /** A fenced JSON block: the opening line, the body, and what closed it. */
  | { kind: 'fenced'; opener: string; body: string; closer: string };

/**
 * A line whose container prefix (indentation, `>`, list markers) is longer than this is nested
 * past anything a model writes on purpose; marked's cost grows with the nesting, so such an
 * answer's spans are not run at all.
 */
const MAX_CONTAINER_PREFIX = 100;
const CONTAINER_PREFIX = /^(?:[ \t]|>|[*+-](?=[ \t])|\d{1,9}[.)](?=[ \t]))*/gm;
const THINK_OPEN = /<think(?:ing)?>/gi;
const THINK_CLOSE = /<\/think(?:ing)?>/gi;
/** Raw HTML blocks whose content is code, not markup to render. */
const CODE_HTML_BLOCK = /^\s*(?:<(?:pre|script|style|textarea)\b|<!--|<\?|<![A-Za-z]|<!\[CDATA\[)/i;
const CODE_HTML_INSIDE = /<(?:code|pre|kbd|samp|tt|textarea|script|style)\b/i;

/**
 * For each tagged or fenced piece, in order: true when it sits outside code and reasoning (for
 * a fenced piece: when it is a top-level fenced block outside reasoning).
 */
export function spansOutsideCode(pieces: readonly DocumentPiece[]): boolean[] {
  const nonce = randomBytes(8).toString('hex');
  const spanCount = pieces.filter((piece) => piece.kind !== 'text').length;
  const no = () => new Array<boolean>(spanCount).fill(false);
  const mark = (kind: 'c' | 't', index: number) => `\uE000${nonce}${kind}${index}\uE001`;
  const sentinel = new RegExp(`\uE000${nonce}([ct])(\\d+)\uE001`, 'g');

  let index = 0;
  const parts: string[] = [];
  for (const piece of pieces) {
    if (piece.kind === 'text') parts.push(piece.text);
    else if (piece.kind === 'tagged') parts.push(mark('c', index++));
    else parts.push(`${piece.opener}${mark('c', index++)}\n${piece.closer}`);
  }
  let source = normalize(parts.join(''));
  if (tooDeep(source)) return no();

  // Reasoning first: it is not markdown, and whatever it holds never runs.
  const leading = leadingReasoning(source);
  source = source.slice(leading);
  let thinks = 0;
  source = source.replace(THINK_OPEN, () => mark('t', thinks++));

  let blocks: Token[];
  try {
    blocks = new Lexer({ gfm: true }).blockTokens(source);
  } catch {
    // Nesting deep enough to exhaust the stack: nothing in this answer is taken for a call.
    return no();
  }

  const inCode = new Set<string>();
  const inProse = new Set<string>();
  const fencedAlone = new Set<string>();
  const found = (text: string, into: Set<string>, except?: Range[]) => {
    for (const match of text.matchAll(sentinel)) {
      const at = match.index;
      if (except && inside(except, at)) inCode.add(match[0]);
      else into.add(match[0]);
    }
  };
  const inline = (text: string) => found(text, inProse, codeSpanRanges(text));

  const stack: Array<{ token: Token; top: boolean }> = blocks.map((token) => ({ token, top: true }));
  stack.reverse();
  while (stack.length > 0) {
    const { token, top } = stack.pop()!;
    const push = (children: readonly Token[] | undefined) => {
      for (let child = (children?.length ?? 0) - 1; child >= 0; child--)
        stack.push({ token: children![child]!, top: false });
    };
    switch (token.type) {
      case 'code': {
        found(token.raw, inCode);
        const code = token as Tokens.Code;
        const fenced = /^ {0,3}(?:```|~~~)/.test(code.raw);
        if (top && fenced && code.text.trim().match(sentinel)?.[0] === code.text.trim())
          fencedAlone.add(code.text.trim());
        break;
      }
      case 'html':
        if (CODE_HTML_BLOCK.test(token.raw) || CODE_HTML_INSIDE.test(token.raw)) found(token.raw, inCode);
        else found(token.raw, inProse);
        break;
      case 'paragraph':
      case 'text':
      case 'heading':
        inline((token as Tokens.Paragraph).text);
        break;
      case 'table': {
        const table = token as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) inline(cell.text);
        break;
      }
      case 'list':
        push((token as Tokens.List).items);
        break;
      case 'list_item':
      case 'blockquote':
        push((token as Tokens.Blockquote).tokens);
        break;
      case 'space':
      case 'hr':
        break;
      default:
        found(token.raw, inProse);
    }
  }

  // What marked may have missed: backtick pairs over the raw text, comments.
  const loose = looseCodeSpanRanges(source);
  const comments = ranges(source, '<!--', '-->');
  const reasoning: Range[] = [];
  for (const match of source.matchAll(sentinel)) {
    if (match[1] !== 't' || inCode.has(match[0]) || !inProse.has(match[0])) continue;
    if (match.index < (reasoning.at(-1)?.[1] ?? 0)) continue;
    THINK_CLOSE.lastIndex = match.index;
    const close = THINK_CLOSE.exec(source);
    reasoning.push([match.index, close ? close.index : source.length]);
  }

  const verdicts = no();
  const positions = new Map<string, number>();
  for (const match of source.matchAll(sentinel)) if (match[1] === 'c') positions.set(match[0], match.index);
  index = 0;
  for (const piece of pieces) {
    if (piece.kind === 'text') continue;
    const name = mark('c', index);
    const at = positions.get(name);
    const within = (list: Range[]) => at !== undefined && inside(list, at);
    if (at !== undefined && !within(reasoning) && !within(comments))
      verdicts[index] =
        piece.kind === 'fenced' ? fencedAlone.has(name) : inProse.has(name) && !inCode.has(name) && !within(loose);
    index++;
  }
  return verdicts;
}

/** Line ends as marked sees them, and tabs as the spaces CommonMark reads them as (stops of 4). */
function normalize(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let line = 0; line < lines.length; line++) {
    const value = lines[line]!;
    if (!value.includes('\t')) continue;
    let out = '';
    for (const char of value) out += char === '\t' ? ' '.repeat(4 - (out.length % 4)) : char;
    lines[line] = out;
  }
  return lines.join('\n');
}

function tooDeep(text: string): boolean {
  for (const match of text.matchAll(CONTAINER_PREFIX)) if (match[0].length > MAX_CONTAINER_PREFIX) return true;
  return false;
}

/** Where the answer's leading reasoning ends (0 when it has none). */
function leadingReasoning(text: string): number {
  THINK_CLOSE.lastIndex = 0;
  const close = THINK_CLOSE.exec(text);
  const closeEnd = close ? close.index + close[0].length : -1;
  if (/^\s*<think(?:ing)?>/i.test(text)) return close ? closeEnd : text.length;
  THINK_OPEN.lastIndex = 0;
  const open = THINK_OPEN.exec(text);
  THINK_OPEN.lastIndex = 0;
  // A close with no open before it: the template opened the block in the prompt.
  return close && (!open || open.index > close.index) ? closeEnd : 0;
}

/** From each `open` to the next `close` after it (or the end). */
function ranges(text: string, open: string, close: string): Range[] {
  const out: Range[] = [];
  let at = text.indexOf(open);
  while (at >= 0) {
    const end = text.indexOf(close, at + open.length);
    if (end < 0) {
      out.push([at, text.length]);
      break;
    }
    out.push([at, end + close.length]);
    at = text.indexOf(open, end + close.length);
  }
  return out;
}
