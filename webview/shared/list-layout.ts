/**
 * The arithmetic of a windowed (virtual) list, without a DOM: where each item sits, which
 * items cover a viewport, how tall the rest is, and how to keep what the reader looks at in
 * place when heights above it become known. Heights are estimates until an item has been
 * shown and measured; measured heights are cached.
 */

/**
 * Prefix sums over item extents (a Fenwick tree): O(log n) to change one extent, to sum the
 * extents before an item and to find the item at an offset; appending is amortised O(1).
 */
export class ExtentTree {
  /** 1-based Fenwick array; its length - 1 is the capacity, a power of two. */
  private tree = new Float64Array(17);
  private readonly values: number[] = [];

  get length(): number {
    return this.values.length;
  }

  get(index: number): number {
    return this.values[index] ?? 0;
  }

  push(extent: number): void {
    this.values.push(extent);
    if (this.values.length >= this.tree.length) this.rebuild((this.tree.length - 1) * 2);
    else this.add(this.values.length - 1, extent);
  }

  set(index: number, extent: number): void {
    const old = this.values[index];
    if (old === undefined || old === extent) return;
    this.values[index] = extent;
    this.add(index, extent - old);
  }

  clear(): void {
    this.values.length = 0;
    this.tree = new Float64Array(17);
  }

  /** Sum of the extents of the first `count` items. */
  prefix(count: number): number {
    let sum = 0;
    for (let position = Math.min(count, this.values.length); position > 0; position -= position & -position)
      sum += this.tree[position]!;
    return sum;
  }

  total(): number {
    return this.prefix(this.values.length);
  }

  /** The item covering `offset` (0 before the start, the last item past the end); -1 when empty. */
  indexAt(offset: number): number {
    if (this.values.length === 0) return -1;
    let position = 0;
    let remaining = offset;
    for (let step = (this.tree.length - 1) >> 0; step > 0; step >>= 1) {
      const next = position + step;
      if (next < this.tree.length && this.tree[next]! <= remaining) {
        position = next;
        remaining -= this.tree[next]!;
      }
    }
    return Math.max(0, Math.min(position, this.values.length - 1));
  }

  private add(index: number, delta: number): void {
    for (let position = index + 1; position < this.tree.length; position += position & -position)
      this.tree[position]! += delta;
  }

  private rebuild(capacity: number): void {
    this.tree = new Float64Array(capacity + 1);
    this.values.forEach((value, index) => (this.tree[index + 1] = value));
    for (let position = 1; position <= capacity; position++) {
      const parent = position + (position & -position);
      if (parent <= capacity) this.tree[parent]! += this.tree[position]!;
    }
  }
}

/** The first item the reader sees and how far its top is above the top of the viewport. */
export interface ScrollAnchor {
  index: number;
  offset: number;
}

export interface ItemRange {
  /** First item to show. */
  start: number;
  /** One past the last item to show. */
  end: number;
}

/**
 * Item positions for a list whose items are laid out top to bottom with `gap` pixels between
 * them. Each item occupies its height plus the gap after it (its extent); the content height is
 * the sum of extents minus the last gap.
 */
export class ListLayout {
  private readonly extents = new ExtentTree();
  private readonly heights: number[] = [];
  private readonly measured: boolean[] = [];

  constructor(private gapPx = 0) {}

  get length(): number {
    return this.heights.length;
  }

  get gap(): number {
    return this.gapPx;
  }

  /** Changes the gap between items (a style change): every extent moves. */
  setGap(gap: number): void {
    if (gap === this.gapPx) return;
    this.gapPx = gap;
    this.rebuild();
  }

  /** Adds an item at the end, with an estimated height. */
  append(estimatedHeight: number): void {
    this.heights.push(estimatedHeight);
    this.measured.push(false);
    this.extents.push(estimatedHeight + this.gapPx);
  }

  clear(): void {
    this.heights.length = 0;
    this.measured.length = 0;
    this.extents.clear();
  }

  heightOf(index: number): number {
    return this.heights[index] ?? 0;
  }

  isMeasured(index: number): boolean {
    return this.measured[index] ?? false;
  }

  /** Records the real height of a shown item; returns how much it moved what lies below it. */
  measure(index: number, height: number): number {
    if (index >= this.heights.length) return 0;
    this.measured[index] = true;
    const change = height - this.heights[index]!;
    if (change === 0) return 0;
    this.heights[index] = height;
    this.extents.set(index, height + this.gapPx);
    return change;
  }

  /** The item's content changed while it is not shown: its height is an estimate again. */
  estimate(index: number, height: number): void {
    if (index >= this.heights.length) return;
    this.measured[index] = false;
    this.heights[index] = height;
    this.extents.set(index, height + this.gapPx);
  }

  /** Every measurement is stale (the width changed): re-estimates all items. */
  reestimate(estimate: (index: number) => number): void {
    for (let index = 0; index < this.heights.length; index++) {
      this.heights[index] = estimate(index);
      this.measured[index] = false;
    }
    this.rebuild();
  }

  /** Top of an item (for `index === length`: the end of the last extent). */
  offsetOf(index: number): number {
    return this.extents.prefix(index);
  }

  contentHeight(): number {
    return this.heights.length === 0 ? 0 : this.extents.total() - this.gapPx;
  }

  maxScrollTop(viewportHeight: number): number {
    return Math.max(0, this.contentHeight() - viewportHeight);
  }

  /** Items that cover [top - overscan, top + viewport + overscan]. */
  range(top: number, viewportHeight: number, overscanPx: number): ItemRange {
    if (this.heights.length === 0) return { start: 0, end: 0 };
    const start = this.extents.indexAt(Math.max(0, top - overscanPx));
    const end = this.extents.indexAt(top + viewportHeight + overscanPx) + 1;
    return { start, end: Math.max(end, start + 1) };
  }

  /** The items to show when the list is scrolled to its end. */
  bottomRange(viewportHeight: number, overscanPx: number): ItemRange {
    return this.range(this.maxScrollTop(viewportHeight), viewportHeight, overscanPx);
  }

  /** Space that stands in for the items before `start` and after `end`. */
  padding(range: ItemRange): { top: number; bottom: number } {
    const top = this.extents.prefix(range.start);
    return { top, bottom: Math.max(0, this.extents.total() - this.extents.prefix(range.end)) };
  }

  /** What the reader sees at `scrollTop`, to find again after heights change. */
  anchorAt(scrollTop: number): ScrollAnchor | undefined {
    if (this.heights.length === 0) return undefined;
    const index = this.extents.indexAt(Math.max(0, scrollTop));
    return { index, offset: scrollTop - this.offsetOf(index) };
  }

  /** The scroll position that shows `anchor` where it was. */
  scrollTopFor(anchor: ScrollAnchor, viewportHeight: number): number {
    const top = this.offsetOf(Math.min(anchor.index, this.heights.length)) + anchor.offset;
    return Math.max(0, Math.min(top, this.maxScrollTop(viewportHeight)));
  }

  private rebuild(): void {
    this.extents.clear();
    for (const height of this.heights) this.extents.push(height + this.gapPx);
  }
}

/** Whether a scroll position counts as "at the end": the list then follows new content. */
export function isAtBottom(scrollTop: number, viewportHeight: number, scrollHeight: number, slackPx = 24): boolean {
  return scrollHeight - (scrollTop + viewportHeight) <= slackPx;
}

export interface TextMetrics {
  /** Line height in pixels. */
  lineHeight: number;
  /** Average character width in pixels. */
  charWidth: number;
}

/**
 * A cheap guess at the height of wrapped text: one line per source line, plus the wrapped
 * lines a long line needs. `chromePx` is what the item adds around its text (padding, borders).
 */
export function estimateTextHeight(text: string, widthPx: number, metrics: TextMetrics, chromePx = 0): number {
  const charsPerLine = Math.max(1, Math.floor(Math.max(1, widthPx) / metrics.charWidth));
  let lines = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lines += Math.max(1, Math.ceil((end - start) / charsPerLine));
    start = end + 1;
  }
  return Math.round(lines * metrics.lineHeight + chromePx);
}
