import assert from 'node:assert/strict';
import { estimateTextHeight, ExtentTree, isAtBottom, ListLayout } from '../../../webview/shared/list-layout';

/** A small deterministic pseudo-random sequence. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
}

describe('windowed list layout (DOM-free)', () => {
  describe('ExtentTree', () => {
    it('keeps prefix sums and finds the item at an offset, through growth and updates', () => {
      const next = random(7);
      const tree = new ExtentTree();
      const values: number[] = [];
      for (let index = 0; index < 1_000; index++) {
        const value = Math.floor(next() * 200);
        values.push(value);
        tree.push(value);
      }
      for (let change = 0; change < 300; change++) {
        const index = Math.floor(next() * values.length);
        values[index] = Math.floor(next() * 200);
        tree.set(index, values[index]!);
      }
      let sum = 0;
      for (let count = 0; count <= values.length; count++) {
        assert.equal(tree.prefix(count), sum, `prefix(${count})`);
        sum += values[count] ?? 0;
      }
      assert.equal(tree.total(), sum);
      for (let probe = 0; probe < 500; probe++) {
        const offset = next() * sum;
        const index = tree.indexAt(offset);
        assert.ok(tree.prefix(index) <= offset && offset < tree.prefix(index + 1) + 1e-9, `offset ${offset}`);
      }
      assert.equal(tree.indexAt(-5), 0);
      assert.equal(tree.indexAt(sum + 10), values.length - 1);
    });

    it('is empty after clear', () => {
      const tree = new ExtentTree();
      for (let index = 0; index < 40; index++) tree.push(10);
      tree.clear();
      assert.equal(tree.length, 0);
      assert.equal(tree.total(), 0);
      assert.equal(tree.indexAt(5), -1);
      tree.push(3);
      assert.equal(tree.total(), 3);
    });
  });

  describe('ListLayout', () => {
    function layoutOf(heights: number[], gap = 10): ListLayout {
      const layout = new ListLayout(gap);
      for (const height of heights) layout.append(height);
      return layout;
    }

    it('places items one after another with the gap between them', () => {
      const layout = layoutOf([100, 50, 20]);
      assert.deepEqual(
        [0, 1, 2, 3].map((index) => layout.offsetOf(index)),
        [0, 110, 170, 200],
      );
      assert.equal(layout.contentHeight(), 190);
      assert.equal(layout.maxScrollTop(100), 90);
      assert.equal(new ListLayout(10).contentHeight(), 0);
    });

    it('shows only the items around the viewport, and the padding makes up the rest', () => {
      const layout = layoutOf(new Array<number>(5_000).fill(40), 10);
      const range = layout.range(50_000, 800, 400);
      assert.deepEqual(range, { start: 992, end: 1_025 });
      const padding = layout.padding(range);
      const shown = (range.end - range.start) * 50;
      assert.equal(padding.top + shown + padding.bottom, layout.contentHeight() + 10);
      assert.equal(padding.top, 992 * 50);
      const bottom = layout.bottomRange(800, 400);
      assert.equal(bottom.end, 5_000);
      assert.ok(bottom.end - bottom.start <= 26, `${bottom.end - bottom.start} items at the bottom`);
      assert.deepEqual(layout.padding(bottom), { top: bottom.start * 50, bottom: 0 });
      assert.deepEqual(new ListLayout().range(0, 100, 10), { start: 0, end: 0 });
    });

    it('caches measured heights and reports how far they moved the items below', () => {
      const layout = layoutOf([100, 100, 100]);
      assert.equal(layout.isMeasured(1), false);
      assert.equal(layout.measure(1, 130), 30);
      assert.equal(layout.isMeasured(1), true);
      assert.equal(layout.measure(1, 130), 0);
      assert.equal(layout.offsetOf(2), 250);
      layout.estimate(1, 60);
      assert.equal(layout.isMeasured(1), false);
      assert.equal(layout.offsetOf(2), 180);
      layout.reestimate(() => 10);
      assert.equal(layout.contentHeight(), 50);
      layout.setGap(0);
      assert.equal(layout.contentHeight(), 30);
    });

    it('keeps what the reader sees in place when items above it are measured', () => {
      const next = random(3);
      const layout = layoutOf(new Array<number>(2_000).fill(60));
      const viewport = 700;
      const scrollTop = 40_000;
      const anchor = layout.anchorAt(scrollTop)!;
      const visibleIndex = anchor.index;
      const onScreenBefore = layout.offsetOf(visibleIndex) - scrollTop;
      // The items just above the viewport (the overscan) are shown and measured: real heights differ.
      const range = layout.range(scrollTop, viewport, 600);
      for (let index = range.start; index < range.end; index++) layout.measure(index, 20 + Math.floor(next() * 200));
      const newScrollTop = layout.scrollTopFor(anchor, viewport);
      assert.notEqual(newScrollTop, scrollTop);
      assert.equal(layout.offsetOf(visibleIndex) - newScrollTop, onScreenBefore);
    });

    it('clamps a restored position to the content', () => {
      const layout = layoutOf([100, 100, 100]);
      const anchor = layout.anchorAt(200)!;
      layout.measure(0, 10);
      layout.measure(1, 10);
      layout.measure(2, 10);
      assert.equal(layout.scrollTopFor(anchor, 50), layout.maxScrollTop(50));
      assert.equal(new ListLayout().anchorAt(0), undefined);
    });

    it('finds the bottom of a list while it grows (following a streaming answer)', () => {
      const layout = layoutOf([100, 100]);
      const viewport = 150;
      for (let height = 100; height <= 2_000; height += 100) {
        layout.measure(1, height);
        const range = layout.bottomRange(viewport, 100);
        assert.equal(range.end, 2);
        assert.equal(layout.maxScrollTop(viewport), layout.contentHeight() - viewport);
      }
    });
  });

  it('counts a position within the slack of the end as at the end', () => {
    assert.equal(isAtBottom(900, 100, 1_000), true);
    assert.equal(isAtBottom(880, 100, 1_000), true);
    assert.equal(isAtBottom(870, 100, 1_000), false);
    assert.equal(isAtBottom(0, 100, 50), true);
  });

  it('estimates wrapped text from its lines and the width', () => {
    const metrics = { lineHeight: 20, charWidth: 10 };
    assert.equal(estimateTextHeight('', 100, metrics), 20);
    assert.equal(estimateTextHeight('short', 100, metrics, 14), 34);
    assert.equal(estimateTextHeight('a\nb\n\nc', 100, metrics), 80);
    assert.equal(estimateTextHeight('x'.repeat(25), 100, metrics), 60);
    assert.equal(estimateTextHeight('x'.repeat(25), 50, metrics), 100);
  });
});
