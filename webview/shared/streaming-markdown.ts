/**
 * Shows a markdown answer while it streams in, at a cost that does not grow with its length:
 * blocks that are finished are rendered once and kept; only the last, still-open blocks are
 * rendered again when more text arrives. Finishing makes the result identical to rendering
 * the whole text when the text has constructs that span blocks.
 */
import { splitStreamingMarkdown } from './markdown-blocks';
import { renderBlocksFragment, renderMarkdownFragment } from './render-markdown';

export class StreamingMarkdown {
  private source = '';
  /** Characters of `source` rendered for good. */
  private frozen = 0;
  /** Nodes of the open blocks, replaced at each update. */
  private openNodes: ChildNode[] = [];
  private spansBlocks = false;

  constructor(readonly element: HTMLElement) {}

  /** Shows `text`: the answer so far, which only grows. */
  update(text: string): void {
    if (text === this.source) return;
    if (text.length < this.source.length || !text.startsWith(this.source.slice(this.frozen), this.frozen)) {
      // Not a continuation: start over.
      this.element.replaceChildren();
      this.openNodes = [];
      this.frozen = 0;
    }
    this.source = text;
    const split = splitStreamingMarkdown(text.slice(this.frozen));
    this.spansBlocks ||= split.spansBlocks;
    for (const node of this.openNodes) node.remove();
    if (split.stable.length > 0) {
      this.element.append(renderBlocksFragment(split.stable));
      this.frozen += split.stableLength;
    }
    const open = renderBlocksFragment(split.open);
    this.openNodes = [...open.childNodes];
    this.element.append(open);
  }

  /** The answer is complete. */
  finish(): void {
    if (this.spansBlocks) this.element.replaceChildren(renderMarkdownFragment(this.source));
    this.openNodes = [];
  }
}
