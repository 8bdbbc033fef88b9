import { test } from "node:test";
import assert from "node:assert/strict";
import { rowRects, hitTest, makeRectBuffer, counterColumns, firstVisible } from "../lod.js";

function row(n, step, width) {
  const start = new Float64Array(n), dur = new Float32Array(n);
  for (let i = 0; i < n; i++) { start[i] = i * step; dur[i] = width; }
  return { start, dur };
}

test("wide events are drawn one rect each, only the visible ones", () => {
  const { start, dur } = row(100, 100, 80);
  const out = makeRectBuffer(4);
  rowRects(start, dur, 0, 100, 1000, 2000, 1, out); // 1 px/ns: every event is 80 px wide
  assert.equal(out.n, 11); // events 10..20 intersect [1000, 2000]
  assert.equal(out.idx[0], 10);
  assert.equal(out.x0[0], 0);
  assert.equal(out.x1[0], 80);
});

test("an event starting before the view but reaching into it is visible", () => {
  const start = Float64Array.from([0, 5000]), dur = Float32Array.from([3000, 10]);
  const out = makeRectBuffer();
  rowRects(start, dur, 0, 2, 1000, 2000, 1, out);
  assert.equal(out.n, 1);
  assert.equal(out.idx[0], 0);
  assert.equal(firstVisible(start, dur, 0, 2, 1000), 0);
});

test("a million sub-pixel events merge into at most a few rects per pixel, visiting few events", () => {
  const n = 1_000_000;
  const { start, dur } = row(n, 10, 5);
  const out = makeRectBuffer();
  const width = 1000;
  const k = width / (n * 10);
  const visited = rowRects(start, dur, 0, n, 0, n * 10, k, out);
  assert.ok(out.n <= width + 1, `rects ${out.n}`);
  assert.ok(visited < 50_000, `visited ${visited}`);
  // merged runs cover the whole row without gaps wider than a pixel
  let covered = 0;
  let total = 0;
  for (let r = 0; r < out.n; r++) { covered = Math.max(covered, out.x1[r]); total += out.count[r]; }
  assert.ok(covered >= width - 1);
  assert.equal(total, n); // every event accounted for exactly once
});

test("a wide event among narrow ones keeps its own rect", () => {
  const start = Float64Array.from([0, 1, 2, 3, 100]), dur = Float32Array.from([0.5, 0.5, 0.5, 90, 1]);
  const out = makeRectBuffer();
  rowRects(start, dur, 0, 5, 0, 200, 1, out);
  const idx = Array.from(out.idx.subarray(0, out.n));
  assert.ok(idx.includes(3), JSON.stringify(idx));
  const total = Array.from(out.count.subarray(0, out.n)).reduce((a, b) => a + b, 0);
  assert.equal(total, 5);
});

test("hit testing finds the event under the cursor, the nearest within tolerance, or none", () => {
  const start = Float64Array.from([0, 100, 200]), dur = Float32Array.from([50, 50, 50]);
  assert.equal(hitTest(start, dur, 0, 3, 120, 0), 1);
  assert.equal(hitTest(start, dur, 0, 3, 155, 10), 1);
  assert.equal(hitTest(start, dur, 0, 3, 195, 10), 2);
  assert.equal(hitTest(start, dur, 0, 3, 175, 10), -1);
  assert.equal(hitTest(start, dur, 0, 3, 0, 0), 0);
  assert.equal(hitTest(start, dur, 0, 0, 10, 10), -1);
});

test("hit testing prefers the shortest of overlapping events", () => {
  const start = Float64Array.from([0, 10]), dur = Float32Array.from([100, 5]);
  assert.equal(hitTest(start, dur, 0, 2, 12, 0), 1);
  assert.equal(hitTest(start, dur, 0, 2, 50, 0), 0);
});

test("counter columns decimate to per-pixel min/max and keep the peak", () => {
  const n = 100_000;
  const ts = new Float64Array(n), val = new Float32Array(n);
  for (let i = 0; i < n; i++) { ts[i] = i; val[i] = i === 54321 ? 1000 : i % 7; }
  const r = counterColumns(ts, val, 0, n, 100 / n, 100);
  assert.equal(r.cols, 100);
  assert.equal(Math.max(...r.max), 1000);
  const small = counterColumns(ts, val, 10, 20, 1, 100);
  assert.ok(small.points.length >= 10 && small.points.length <= 13);
});
