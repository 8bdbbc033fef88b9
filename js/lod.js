// Level of detail and hit testing for one timeline row (events of one lane at one depth, sorted by start).
// Pure functions over typed arrays: unit-tested in js/test/lod.test.js.
//
// rowRects walks only what is visible and merges sub-pixel events: a run of narrow events is one rect,
// and inside a run it jumps (binary search) to the first event past the next pixel, so a row costs
// O(pixels · log n) instead of O(events) when zoomed out.

import { lowerBound } from "./data.js";

export const MIN_W = 2;      // px: narrower events join a merged run
const BACKTRACK = 64;         // how far back to look for an event that starts before t0 but reaches into view

// out: {x0: Float32Array, x1: Float32Array, idx: Uint32Array, count: Uint32Array, n}
export function makeRectBuffer(cap = 4096) {
  return { x0: new Float32Array(cap), x1: new Float32Array(cap), idx: new Uint32Array(cap),
    count: new Uint32Array(cap), n: 0 };
}

function push(out, x0, x1, idx, count) {
  if (out.n === out.x0.length) {
    const cap = out.n * 2;
    for (const k of ["x0", "x1", "idx", "count"]) { const a = new out[k].constructor(cap); a.set(out[k]); out[k] = a; }
  }
  out.x0[out.n] = x0; out.x1[out.n] = x1; out.idx[out.n] = idx; out.count[out.n] = count; out.n++;
}

export function firstVisible(start, dur, lo, hi, t0) {
  let i = lowerBound(start, lo, hi, t0);
  let best = i;
  for (let j = i - 1, k = 0; j >= lo && k < BACKTRACK; j--, k++) if (start[j] + dur[j] > t0) best = j;
  return best;
}

// Visible rects of row [lo, hi) for the view [t0, t1] at k px/ns; x relative to the plot's left edge.
// Returns the number of events visited (for the tests' complexity checks).
export function rowRects(start, dur, lo, hi, t0, t1, k, out) {
  let i = firstVisible(start, dur, lo, hi, t0);
  let visited = 0;
  let runX0 = 0, runX1 = -Infinity, runIdx = -1, runCount = 0;
  const flush = () => { if (runCount) push(out, runX0, Math.max(runX1, runX0 + 1), runIdx, runCount); runCount = 0; };
  while (i < hi) {
    const s = start[i];
    if (s > t1) break;
    visited++;
    const x0 = (s - t0) * k, x1 = (s + dur[i] - t0) * k;
    if (x1 - x0 >= MIN_W) { // wide: its own rect
      flush();
      push(out, x0, x1, i, 1);
      i++;
      continue;
    }
    if (runCount && x0 <= runX1 + 1) {
      runX1 = Math.max(runX1, x1); runCount++;
    } else {
      flush();
      runX0 = x0; runX1 = x1; runIdx = i; runCount = 1;
    }
    // jump: everything starting before the next pixel boundary merges into this run
    const tNext = t0 + (Math.floor(runX1) + 1) / k;
    let j = lowerBound(start, i + 1, hi, tNext);
    if (j - 1 > i) {
      const last = j - 1;
      const lx0 = (start[last] - t0) * k, lx1 = (start[last] + dur[last] - t0) * k;
      if (lx1 - lx0 >= MIN_W) j = last; // a wide event is drawn on its own
      else runX1 = Math.max(runX1, lx1);
      runCount += Math.max(j - i - 1, 0);
    }
    i = Math.max(j, i + 1);
  }
  flush();
  return visited;
}

// The event of row [lo, hi) under time t, or the nearest within tol ns; -1 if none.
export function hitTest(start, dur, lo, hi, t, tol) {
  if (hi <= lo) return -1;
  const i = lowerBound(start, lo, hi, t + 1e-9); // first start > t
  let best = -1, bestDist = Infinity;
  for (let j = i - 1, k = 0; j >= lo && k < BACKTRACK; j--, k++) {
    const s = start[j], e = s + dur[j];
    if (t >= s && t <= e) {
      // innermost-by-duration wins among overlapping candidates
      if (bestDist > 0 || dur[j] < dur[best]) { best = j; bestDist = 0; }
    } else {
      const d = t - e;
      if (d <= tol && d < bestDist) { best = j; bestDist = d; }
      if (e < t - tol && k > 2) break;
    }
  }
  if (i < hi) {
    const d = start[i] - t;
    if (d <= tol && d < bestDist) { best = i; bestDist = d; }
  }
  return best;
}

// Counter series in [t0, t1] as per-pixel min/max columns plus the step line's points.
export function counterColumns(ts, val, t0, t1, k, width) {
  const lo = Math.max(lowerBound(ts, 0, ts.length, t0) - 1, 0);
  const hi = Math.min(lowerBound(ts, lo, ts.length, t1) + 1, ts.length);
  const n = hi - lo;
  if (n <= 0) return { points: [], n: 0 };
  if (n <= width * 2) {
    const points = [];
    for (let i = lo; i < hi; i++) points.push([(ts[i] - t0) * k, val[i]]);
    return { points, n };
  }
  const cols = Math.max(Math.ceil(width), 1);
  const mn = new Float64Array(cols).fill(Infinity), mx = new Float64Array(cols).fill(-Infinity);
  for (let i = lo; i < hi; i++) {
    const c = Math.min(Math.max(Math.floor((ts[i] - t0) * k), 0), cols - 1);
    const v = val[i];
    if (v < mn[c]) mn[c] = v;
    if (v > mx[c]) mx[c] = v;
  }
  return { min: mn, max: mx, cols, n };
}
