// Decoding of the binary payload built by cann_nb/widgets/_encode.py, and the derived indexes the views
// share (self time, launch links, row lookup). Columns arrive as {dtype, n, z: zlib bytes}.

const CTORS = { f8: Float64Array, f4: Float32Array, u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, i4: Int32Array };

function asBytes(buf) {
  if (buf instanceof Uint8Array) return buf;
  if (buf instanceof ArrayBuffer) return new Uint8Array(buf);
  if (ArrayBuffer.isView(buf)) return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (typeof buf === "string") { // base64 (static hosts)
    const bin = atob(buf);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  throw new Error("cann_nb: unexpected buffer type " + Object.prototype.toString.call(buf));
}

export async function inflate(buf) {
  const bytes = asBytes(buf);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return await new Response(stream).arrayBuffer();
}

export async function decodeColumn(col) {
  const Ctor = CTORS[col.dtype];
  if (!Ctor) throw new Error("cann_nb: unknown column dtype " + col.dtype);
  if (!col.n) return new Ctor(0);
  const ab = await inflate(col.z);
  return new Ctor(ab, 0, col.n);
}

export function lowerBound(arr, lo, hi, x) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// CSR index: for each key in [0, n), the list of values (keys/values parallel arrays)
export function csr(keys, values, n) {
  const offs = new Uint32Array(n + 1);
  for (let i = 0; i < keys.length; i++) offs[keys[i] + 1]++;
  for (let i = 0; i < n; i++) offs[i + 1] += offs[i];
  const fill = offs.slice(0, n);
  const out = new Uint32Array(keys.length);
  for (let i = 0; i < keys.length; i++) out[fill[keys[i]]++] = values[i];
  return { offs, vals: out, get(k) { return out.subarray(offs[k], offs[k + 1]); } };
}

export class EventData {
  static async load(payload) {
    const d = new EventData();
    d.payload = payload;
    d.n = payload.n || 0;
    d.nTotal = payload.n_total || d.n;
    d.hidden = payload.hidden || 0;
    d.hiddenBelowNs = payload.hidden_below_ns || 0;
    d.flatCounters = payload.flat_counters || 0;
    d.extent = payload.extent || [0, 1];
    d.lanes = payload.lanes || [];
    d.rows = payload.rows || { lane: [], depth: [], lo: [], hi: [] };
    d.dicts = payload.dicts || { name: [], cat: [] };
    const cols = payload.cols || {};
    const names = Object.keys(cols);
    const decoded = await Promise.all(names.map((k) => decodeColumn(cols[k])));
    d.cols = {};
    names.forEach((k, i) => { d.cols[k] = decoded[i]; });
    const [fsrc, fdst] = payload.flows
      ? await Promise.all([decodeColumn(payload.flows.src), decodeColumn(payload.flows.dst)])
      : [new Uint32Array(0), new Uint32Array(0)];
    d.counters = await Promise.all((payload.counters || []).map(async (s) => ({
      ...s, ts: await decodeColumn(s.ts), val: await decodeColumn(s.val),
    })));
    d.index(fsrc, fdst);
    return d;
  }

  // synchronous constructor for tests: plain arrays already decoded
  static fromArrays({ start, dur, name, cat, parent, rows, lanes, names, cats, flows, extent, shapes, module, dicts }) {
    const d = new EventData();
    d.n = start.length; d.nTotal = d.n; d.hidden = 0; d.hiddenBelowNs = 0; d.flatCounters = 0;
    d.lanes = lanes; d.rows = rows;
    d.dicts = dicts || { name: names, cat: cats };
    d.cols = { start: Float64Array.from(start), dur: Float32Array.from(dur), name: Uint32Array.from(name),
      cat: Uint8Array.from(cat), parent: Int32Array.from(parent) };
    if (shapes) d.cols.shapes = Uint32Array.from(shapes);
    if (module) d.cols.module = Uint32Array.from(module);
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < d.n; i++) { lo = Math.min(lo, start[i]); hi = Math.max(hi, start[i] + dur[i]); }
    d.extent = extent || [d.n ? lo : 0, d.n ? hi : 1];
    d.counters = [];
    d.index(Uint32Array.from(flows ? flows[0] : []), Uint32Array.from(flows ? flows[1] : []));
    return d;
  }

  index(fsrc, fdst) {
    const { start, dur, parent } = this.cols;
    this.start = start; this.dur = dur; this.name = this.cols.name; this.cat = this.cols.cat; this.parent = parent;
    this.names = this.dicts.name; this.cats = this.dicts.cat;
    const n = this.n;
    // self time: duration minus the direct children's (same track), clipped at 0
    const childSum = new Float64Array(n);
    for (let i = 0; i < n; i++) { const p = parent[i]; if (p >= 0) childSum[p] += dur[i]; }
    const self = new Float32Array(n);
    for (let i = 0; i < n; i++) self[i] = Math.max(dur[i] - childSum[i], 0);
    this.self = self;
    this.flowsSrc = fsrc; this.flowsDst = fdst;
    this.launched = csr(fsrc, fdst, n);   // launch -> device tasks
    this.launchedBy = csr(fdst, fsrc, n); // device task -> launch
    this.rowLo = Uint32Array.from(this.rows.lo);
    this.rowHi = Uint32Array.from(this.rows.hi);
    this.nameIndex = null;
  }

  rowOf(i) { // rows are contiguous and ordered: binary search their starts
    let lo = 0, hi = this.rowLo.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >>> 1; if (this.rowLo[mid] <= i) lo = mid; else hi = mid - 1; }
    return lo;
  }

  laneOf(i) { return this.rows.lane[this.rowOf(i)]; }
  end(i) { return this.start[i] + this.dur[i]; }
  nameOf(i) { return this.names[this.name[i]]; }
  catOf(i) { return this.cats[this.cat[i]]; }
  shapesOf(i) { const c = this.cols.shapes; return c && c[i] ? this.dicts.shapes[c[i] - 1] : null; }
  moduleOf(i) { const c = this.cols.module; return c && c[i] ? this.dicts.module[c[i] - 1] : null; }

  nameId(name) {
    if (!this.nameIndex) { this.nameIndex = new Map(); this.names.forEach((s, k) => this.nameIndex.set(s, k)); }
    const v = this.nameIndex.get(name);
    return v === undefined ? -1 : v;
  }

  parentChain(i) {
    const out = [];
    for (let p = this.parent[i]; p >= 0 && out.length < 256; p = this.parent[p]) out.push(p);
    return out;
  }

  // every event whose name code satisfies pred(code) (and optional extra filter), ascending indices
  matching(pred, extra) {
    const ok = new Uint8Array(this.names.length);
    let any = false;
    for (let k = 0; k < this.names.length; k++) if (pred(k)) { ok[k] = 1; any = true; }
    if (!any) return new Uint32Array(0);
    const name = this.name, n = this.n;
    let count = 0;
    const tmp = new Uint32Array(n);
    for (let i = 0; i < n; i++) if (ok[name[i]] && (!extra || extra(i))) tmp[count++] = i;
    return tmp.slice(0, count);
  }

  heaviest(rows) {
    let best = -1, bd = -1;
    for (let k = 0; k < rows.length; k++) { const i = rows[k]; if (this.dur[i] > bd) { bd = this.dur[i]; best = i; } }
    return best;
  }

  extentOf(rows) {
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]; lo = Math.min(lo, this.start[i]); hi = Math.max(hi, this.start[i] + this.dur[i]);
    }
    return rows.length ? [lo, hi] : null;
  }
}
