import { test } from "node:test";
import assert from "node:assert/strict";
import { EventData, decodeColumn } from "../data.js";
import { buildTree } from "../calltree.js";
import { Store } from "../store.js";
import { deflateSync } from "node:zlib";

// host: step(0..100) > op A(10..60) > launch(20..25); op B(70..90); device: kernel K(30..80) launched by launch
function sample() {
  return EventData.fromArrays({
    start: [0, 10, 70, 20, 30], dur: [100, 50, 20, 5, 50],
    name: [0, 1, 2, 3, 4], cat: [0, 0, 0, 1, 2], parent: [-1, 0, 0, 1, -1],
    rows: { lane: [0, 0, 0, 1], depth: [0, 1, 2, 0], lo: [0, 1, 3, 4], hi: [1, 3, 4, 5] },
    lanes: [{ name: "host/thread 1", group: "host" }, { name: "cuda:0/stream 7", group: "cuda:0" }],
    names: ["step", "A", "B", "cudaLaunchKernel", "K"], cats: ["op", "runtime", "kernel"],
    flows: [[3], [4]],
  });
}

test("self time, parent chain and launch links", () => {
  const d = sample();
  assert.deepEqual(Array.from(d.self), [30, 45, 20, 5, 50]);
  assert.deepEqual(d.parentChain(3), [1, 0]);
  assert.deepEqual(Array.from(d.launched.get(3)), [4]);
  assert.deepEqual(Array.from(d.launchedBy.get(4)), [3]);
  assert.equal(d.rowOf(0), 0); assert.equal(d.rowOf(2), 1); assert.equal(d.rowOf(3), 2); assert.equal(d.rowOf(4), 3);
});

test("call tree puts device tasks under their launch and sums totals", () => {
  const d = sample();
  const T = buildTree(d);
  const byLabel = {};
  for (let c = 0; c < T.size; c++) byLabel[T.labelOf(c)] = c;
  assert.equal(T.total[byLabel.step], 100);
  assert.equal(T.parent[byLabel.K], byLabel.cudaLaunchKernel);
  assert.equal(T.kind[byLabel.K], 3);
  assert.equal(T.parent[byLabel.cudaLaunchKernel], byLabel.A);
  assert.equal(T.self[byLabel.A], 45);
  // layout: a launch (5 ns) is as wide as its 50 ns kernel, and A grows to fit its children
  assert.equal(T.layout[byLabel.cudaLaunchKernel], 50);
  assert.ok(T.layout[byLabel.A] >= 50);
  assert.equal(T.eventNode[4], byLabel.K);
});

test("store.showOp highlights occurrences and selects the heaviest", () => {
  const d = sample();
  const s = new Store(d);
  const seen = [];
  s.on("select", (e) => seen.push(e));
  const r = s.showOp({ name: "A" });
  assert.deepEqual(Array.from(r.rows), [1]);
  assert.equal(s.selected, 1);
  assert.equal(seen[0].zoom, true);
  assert.equal(s.showOp({ name: "nope" }).rows.length, 0);
});

test("columns decode from zlib bytes and base64", async () => {
  const arr = new Float64Array([1.5, 2.5, 1e15]);
  const z = deflateSync(Buffer.from(arr.buffer));
  const a = await decodeColumn({ dtype: "f8", n: 3, z: new Uint8Array(z) });
  assert.deepEqual(Array.from(a), [1.5, 2.5, 1e15]);
  const b = await decodeColumn({ dtype: "f8", n: 3, z: z.toString("base64") });
  assert.deepEqual(Array.from(b), [1.5, 2.5, 1e15]);
});
