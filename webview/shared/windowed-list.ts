/**
 * A windowed list in the DOM: only the items near the viewport are elements; padding stands
 * in for the rest. Heights are estimated until an item is shown, then measured and cached
 * (ListLayout). While the reader is at the end, the list follows new content; once they
 * scroll up, what they look at stays where it is, even when items above are measured.
 * All DOM work happens once per animation frame.
 */
import { isAtBottom, ListLayout, type ItemRange, type ScrollAnchor } from './list-layout';

/** What the list shows; items are only ever appended (or all cleared with reset()). */
export interface WindowedListSource {
  readonly length: number;
  /** An element showing item `index`. */
  create(index: number): HTMLElement;
  /** Brings a shown element up to date after refresh(index): the same element or a new one. */
  update(index: number, element: HTMLElement): HTMLElement;
  /** A guess at the item's height for a given width, before it has been shown. */
  estimate(index: number, widthPx: number): number;
}

export interface WindowedListOptions {
  /** Pixels of items kept beyond each edge of the viewport. */
  overscanPx?: number;
  /** Distance from the end within which the list counts as at the end (and follows). */
  followSlackPx?: number;
}

export class WindowedList {
  /** The element holding the shown items (a child of the scroller). */
  readonly items: HTMLElement;
  private readonly layout = new ListLayout();
  private readonly mounted = new Map<number, HTMLElement>();
  private readonly dirty = new Set<number>();
  private range: ItemRange = { start: 0, end: 0 };
  private following = true;
  /** Where the reader is when not following; kept across frames so re-measuring cannot drift. */
  private anchor: ScrollAnchor | undefined;
  private frame: number | undefined;
  private width = 0;
  private gapKnown = false;
  /** The scroll position after this list's last frame, to tell its own scrolls from the reader's. */
  private ownScrollTop = 0;
  /** The scroll position last seen, to tell which way the reader scrolls. */
  private lastScrollTop = 0;
  private readonly overscanPx: number;
  private readonly followSlackPx: number;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly source: WindowedListSource,
    options: WindowedListOptions = {},
  ) {
    this.overscanPx = options.overscanPx ?? 600;
    this.followSlackPx = options.followSlackPx ?? 24;
    this.items = document.createElement('div');
    this.items.className = 'windowed-items';
    scroller.append(this.items);
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    // Sizes that change outside a frame of ours (the view resized, a custom element rendered).
    const resize = new ResizeObserver(() => this.schedule());
    resize.observe(scroller);
    resize.observe(this.items);
  }

  /** Whether the list is following the end of its content. */
  get isFollowing(): boolean {
    return this.following;
  }

  /** Items currently in the DOM (for tests and benchmarks). */
  get mountedCount(): number {
    return this.mounted.size;
  }

  /** Requests a frame that shows new items (appended to the source) and refreshed ones. */
  schedule(): void {
    this.frame ??= requestAnimationFrame(() => this.render());
  }

  /** Item `index` changed. */
  refresh(index: number): void {
    const known = this.layout.length;
    this.sync();
    // An item new to the layout was just estimated from its current content.
    if (index >= known) return this.schedule();
    if (this.mounted.has(index)) this.dirty.add(index);
    else this.layout.estimate(index, this.source.estimate(index, this.width));
    this.schedule();
  }

  /** Follows the end again (the user sent a prompt). */
  followEnd(): void {
    this.following = true;
    this.anchor = undefined;
    this.schedule();
  }

  /** The source was cleared. */
  reset(): void {
    this.layout.clear();
    this.mounted.clear();
    this.dirty.clear();
    this.items.replaceChildren();
    this.items.style.paddingTop = this.items.style.paddingBottom = '';
    this.range = { start: 0, end: 0 };
    this.followEnd();
  }

  /** Adds layout entries for items appended to the source. */
  private sync(): void {
    if (this.width === 0) this.width = this.scroller.clientWidth || 300;
    for (let index = this.layout.length; index < this.source.length; index++)
      this.layout.append(this.source.estimate(index, this.width));
  }

  private onScroll(): void {
    const top = this.scroller.scrollTop;
    const previous = this.lastScrollTop;
    this.lastScrollTop = top;
    if (Math.abs(top - this.ownScrollTop) < 1) return;
    // Any move up leaves the end (even a few pixels of a trackpad); reaching the end again follows it.
    if (top < previous - 0.5) this.following = false;
    else if (isAtBottom(top, this.scroller.clientHeight, this.scroller.scrollHeight, this.followSlackPx))
      this.following = true;
    this.anchor = this.following ? undefined : this.layout.anchorAt(top);
    this.schedule();
  }

  private render(): void {
    this.frame = undefined;
    const viewport = this.scroller.clientHeight;
    const width = this.scroller.clientWidth;
    // Hidden (nothing to measure): the resize observer brings the list back when it shows.
    if (width === 0 && viewport === 0) return;
    if (!this.gapKnown) {
      this.layout.setGap(parseFloat(getComputedStyle(this.items).rowGap) || 0);
      this.gapKnown = true;
    }
    this.sync();
    if (width > 0 && Math.abs(width - this.width) > 1) {
      // Wrapped text changes height with the width: every cached height is stale.
      this.width = width;
      this.layout.reestimate((index) => this.source.estimate(index, width));
    }
    // Show the items around the reader, measure them, and repeat while measuring moved them.
    for (let pass = 0; pass < 4; pass++) {
      const top = this.anchor ? this.layout.scrollTopFor(this.anchor, viewport) : this.layout.maxScrollTop(viewport);
      this.mount(this.layout.range(top, viewport, this.overscanPx));
      let moved = false;
      for (const [index, element] of this.mounted)
        if (this.layout.measure(index, element.getBoundingClientRect().height) !== 0) moved = true;
      if (!moved) break;
    }
    const padding = this.layout.padding(this.range);
    this.items.style.paddingTop = `${padding.top}px`;
    this.items.style.paddingBottom = `${padding.bottom}px`;
    const top = this.anchor ? this.layout.scrollTopFor(this.anchor, viewport) : this.layout.maxScrollTop(viewport);
    if (Math.abs(this.scroller.scrollTop - top) >= 1) this.scroller.scrollTop = top;
    this.ownScrollTop = this.lastScrollTop = this.scroller.scrollTop;
  }

  /** Makes exactly the items of `range` elements of the list, in order. */
  private mount(range: ItemRange): void {
    for (const [index, element] of this.mounted) {
      if (index >= range.start && index < range.end) continue;
      element.remove();
      this.mounted.delete(index);
      if (this.dirty.delete(index)) this.layout.estimate(index, this.source.estimate(index, this.width));
    }
    let cursor = this.items.firstElementChild;
    for (let index = range.start; index < range.end; index++) {
      let element = this.mounted.get(index);
      if (element && this.dirty.has(index)) {
        const fresh = this.source.update(index, element);
        if (fresh !== element) {
          if (cursor === element) cursor = fresh;
          element.replaceWith(fresh);
          element = fresh;
          this.mounted.set(index, fresh);
        }
      }
      if (!element) {
        element = this.source.create(index);
        this.mounted.set(index, element);
      }
      this.dirty.delete(index);
      if (element === cursor) cursor = cursor.nextElementSibling;
      else this.items.insertBefore(element, cursor);
    }
    this.range = range;
  }
}
