/**
 * Markdown → HTML (not yet sanitised: see render-markdown.ts), and the block split that lets a
 * streaming answer render only what changed. DOM-free, so it runs (and is tested) in Node.
 */
import { Marked, type Token, type Tokens } from 'marked';

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    image({ href, text }: Tokens.Image): string {
      const label = escapeHtml(text || href);
      return `<a href="${escapeHtml(href)}" class="image-link" title="Image (not loaded)">[image: ${label}]</a>`;
    },
  },
});

/** The whole document as (unsanitised) HTML. */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

/** Top-level blocks (as lexed from one source) as (unsanitised) HTML. */
export function blocksToHtml(blocks: Token[]): string {
  return blocks.length === 0 ? '' : marked.parser(blocks);
}

export interface StreamingSplit {
  /** Finished blocks: later text cannot change how they render. */
  stable: Token[];
  /** Characters of the source the stable blocks cover. */
  stableLength: number;
  /** The blocks still growing, to render again when more text arrives. */
  open: Token[];
  /**
   * Whether the source uses constructs that span blocks (link reference definitions, raw HTML
   * blocks): then rendering blocks one by one can differ from rendering the whole text.
   */
  spansBlocks: boolean;
}

/**
 * Splits the unfinished part of a streaming answer into blocks that are done and blocks that
 * may still change. The last `openBlocks` blocks (not counting blank lines) stay open: the
 * last one is still being written, and the one before it could still be joined by it (a list
 * `1. a` followed by what becomes `2. b`). Text with carriage returns is kept open as a whole,
 * since the lexer normalises line ends and offsets would no longer match.
 */
export function splitStreamingMarkdown(source: string, openBlocks = 2): StreamingSplit {
  const tokens = marked.lexer(source);
  const spansBlocks = Object.keys(tokens.links).length > 0 || tokens.some((token) => token.type === 'html');
  let cut = tokens.length;
  for (let seen = 0; cut > 0 && seen < openBlocks;) if (tokens[--cut]!.type !== 'space') seen++;
  const stable = tokens.slice(0, cut);
  const stableLength = stable.reduce((sum, token) => sum + token.raw.length, 0);
  if (source.includes('\r') || source.slice(0, stableLength) !== stable.map((token) => token.raw).join(''))
    return { stable: [], stableLength: 0, open: tokens, spansBlocks };
  return { stable, stableLength, open: tokens.slice(cut), spansBlocks };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
