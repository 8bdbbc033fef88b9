// Call tree: events merged by call path (module -> op -> child ops -> device tasks) with total and self
// time, drawn as an icicle on a canvas. Click a node to zoom into it (click the top bar to zoom out) and to
// highlight its events on the timeline; the node of the selected event is outlined.

import { h, clear, fmtNs, fmtCount, PALETTE, hashString, cssVar } from "./dom.js";

const ROW = 18;

// Pure: build the merged tree. Returns typed arrays per node and each event's node.
export function buildTree(d) {
  const n = d.n;
  const nNames = d.names.length;
  const cap = 1024;
  let parent = new Int32Array(cap), label = new Int32Array(cap), kind = new Uint8Array(cap);
  let total = new Float64Array(cap), self = new Float64Array(cap), count = new Uint32Array(cap), depth = new Uint16Array(cap);
  let size = 1; // node 0 = root
  parent[0] = -1; label[0] = -1; kind[0] = 0;
  const keyMap = new Map();
  const moduleNames = [];
  const grow = () => {
    const c = parent.length * 2;
    const g = (a) => { const b = new a.constructor(c); b.set(a); return b; };
    parent = g(parent); label = g(label); kind = g(kind); total = g(total); self = g(self); count = g(count); depth = g(depth);
  };
  // kind: 0 root, 1 module path segment (label indexes moduleNames), 2 host op, 3 device task
  const child = (p, lab, kd) => {
    const key = (p * (nNames + 1) + lab) * 4 + kd;
    let c = keyMap.get(key);
    if (c === undefined) {
      if (size === parent.length) grow();
      c = size++;
      parent[c] = p; label[c] = lab; kind[c] = kd; depth[c] = depth[p] + 1;
      keyMap.set(key, c);
    }
    return c;
  };
  const moduleNode = new Map(); // module code -> node
  const modSeg = new Map();
  const segId = (s) => { let v = modSeg.get(s); if (v === undefined) { v = moduleNames.length; moduleNames.push(s); modSeg.set(s, v); } return v; };
  const modCol = d.cols.module;
  const modNodeOf = (code) => {
    let node = moduleNode.get(code);
    if (node !== undefined) return node;
    node = 0;
    const parts = d.dicts.module[code - 1].split(".");
    for (let k = 1; k <= parts.length; k++) node = child(node, segId(parts.slice(0, k).join(".")), 1);
    moduleNode.set(code, node);
    return node;
  };
  const eventNode = new Int32Array(n).fill(-1);
  const isTask = new Uint8Array(n);
  for (let k = 0; k < d.flowsDst.length; k++) isTask[d.flowsDst[k]] = 1;
  const place = (i, p) => {
    const node = child(p, d.name[i], isTask[i] ? 3 : 2);
    eventNode[i] = node;
    total[node] += d.dur[i]; self[node] += d.self[i]; count[node]++;
  };
  // pass 1: host-side events; a parent precedes its children (rows are sorted by lane, depth, start)
  for (let i = 0; i < n; i++) {
    if (isTask[i]) continue;
    const p = d.parent[i];
    let pn = p >= 0 ? eventNode[p] : -1;
    if (pn < 0) pn = modCol && modCol[i] ? modNodeOf(modCol[i]) : 0;
    place(i, pn);
  }
  // pass 2: device tasks under the call that launched them
  for (let i = 0; i < n; i++) {
    if (!isTask[i]) continue;
    const by = d.launchedBy.get(i);
    const pn = by.length && eventNode[by[0]] >= 0 ? eventNode[by[0]] : 0;
    place(i, pn);
  }
  // module and root totals: sums of their children; layout value: max(own total, children's layout)
  const layout = new Float64Array(size);
  const kids = Array.from({ length: size }, () => []);
  for (let c = 1; c < size; c++) kids[parent[c]].push(c);
  for (let c = size - 1; c >= 0; c--) { // children have larger ids than parents
    let sum = 0;
    for (const k of kids[c]) sum += layout[k];
    if (kind[c] <= 1) { let t = 0; for (const k of kids[c]) t += total[k]; total[c] = t; }
    layout[c] = Math.max(total[c], sum);
  }
  for (const list of kids) list.sort((a, b) => layout[b] - layout[a]);
  const labelOf = (c) => (c === 0 ? "all" : kind[c] === 1 ? moduleNames[label[c]] : d.names[label[c]]);
  return { size, parent: parent.subarray(0, size), kind: kind.subarray(0, size), total: total.subarray(0, size),
    self: self.subarray(0, size), count: count.subarray(0, size), depth: depth.subarray(0, size), layout, kids,
    eventNode, labelOf, nameId: (c) => (kind[c] >= 2 ? label[c] : -1) };
}

export class CallTree {
  constructor(store, { height = 420 } = {}) {
    this.store = store;
    this.maxHeight = height;
    this.tree = null;
    this.focus = 0;
    this.marked = -1;
    this.markedName = -1;
    this.canvas = h("canvas", { class: "cnb-icicle", "aria-label": "call tree" });
    this.tooltip = h("div", { class: "cnb-tooltip" });
    this.tooltip.style.display = "none";
    this.crumbs = h("div", { class: "cnb-chain" });
    this.wrap = h("div", { class: "cnb-icicle-wrap" }, this.canvas, this.tooltip);
    this.el = h("div", { class: "cnb-calltree" },
      h("div", { class: "cnb-toolbar" }, h("b", { text: "Call tree" }),
        h("span", { class: "cnb-muted", text: "width = total time (device tasks under their launch) · click: zoom in + show on timeline · click the top bar: zoom out" })),
      this.crumbs, this.wrap);
    this.ctx = this.canvas.getContext("2d");
    this.bind();
    this.unsubs = [
      store.on("select", ({ index }) => { if (this.tree) { this.marked = index >= 0 ? this.tree.eventNode[index] : -1; this.draw(); } }),
      store.on("op", ({ name, source }) => {
        if (source === "calltree" || !this.tree) return;
        this.markedName = name ? store.data.nameId(name) : -1;
        this.draw();
      }),
    ];
  }

  destroy() { this.unsubs.forEach((f) => f()); if (this.ro) this.ro.disconnect(); }

  ensure() {
    if (!this.tree) {
      const t = performance.now();
      this.tree = buildTree(this.store.data);
      this.buildMs = performance.now() - t;
      if (typeof ResizeObserver !== "undefined" && !this.ro) { this.ro = new ResizeObserver(() => {
        const w = this.wrap.clientWidth;
        if (w !== this.observedW) { this.observedW = w; this.draw(); }
      }); this.ro.observe(this.wrap); }
    }
    this.draw();
  }

  layoutNodes(width) {
    const T = this.tree, out = [];
    const f = this.focus;
    const scale = width / (T.layout[f] || 1);
    // ancestors of the focus: full-width bars on top
    const anc = [];
    for (let p = T.parent[f]; p >= 0; p = T.parent[p]) anc.unshift(p);
    anc.forEach((a, k) => out.push({ node: a, x: 0, w: width, y: k }));
    const base = anc.length;
    const stack = [[f, 0, base]];
    while (stack.length) {
      const [c, x, y] = stack.pop();
      const w = T.layout[c] * scale;
      if (w < 0.5) continue;
      out.push({ node: c, x, w, y });
      let cx = x;
      for (const k of T.kids[c]) { stack.push([k, cx, y + 1]); cx += T.layout[k] * scale; }
    }
    return out;
  }

  draw() {
    if (!this.tree) return;
    const w = this.wrap.clientWidth;
    if (!w) return;
    const nodes = this.layoutNodes(w);
    const rows = nodes.reduce((m, n) => Math.max(m, n.y + 1), 1);
    const H = Math.min(rows * ROW + 2, 2000);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = w + "px";
    this.canvas.style.height = H + "px";
    this.wrap.style.maxHeight = this.maxHeight + "px";
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(H * dpr);
    const ctx = this.ctx, T = this.tree;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = cssVar(this.el, "--cnb-bg", "#fff");
    ctx.fillRect(0, 0, w, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const fg = cssVar(this.el, "--cnb-fg", "#1f2328");
    const hl = cssVar(this.el, "--cnb-hl", "#ff6a00");
    for (const n of nodes) {
      const c = n.node;
      const kd = T.kind[c];
      const y = n.y * ROW;
      const color = kd === 0 ? "#8c959f" : kd === 1 ? "#bfc7d0" : PALETTE[hashString(T.labelOf(c)) % PALETTE.length];
      ctx.fillStyle = color;
      ctx.globalAlpha = kd === 3 ? 0.75 : 1;
      ctx.fillRect(n.x + 0.5, y + 1, Math.max(n.w - 1, 0.5), ROW - 2);
      ctx.globalAlpha = 1;
      if (c === this.marked || (this.markedName >= 0 && T.nameId(c) === this.markedName)) {
        ctx.strokeStyle = hl; ctx.lineWidth = 2;
        ctx.strokeRect(n.x + 1, y + 1.5, Math.max(n.w - 2, 1), ROW - 3);
        ctx.lineWidth = 1;
      }
      if (n.w > 40) {
        const text = `${T.labelOf(c)} ${fmtNs(T.total[c])}`;
        const chars = Math.floor((n.w - 6) / 6.3);
        ctx.fillStyle = kd <= 1 ? fg : "#111";
        ctx.fillText(text.length > chars ? text.slice(0, Math.max(chars - 1, 1)) + "…" : text, n.x + 3, y + ROW / 2 + 0.5);
      }
    }
    this.nodes = nodes;
    this.el.dataset.nodes = String(T.size);
    clear(this.crumbs).appendChild(h("span", { class: "cnb-muted",
      text: `${fmtCount(T.size - 1)} call paths · focus: ${T.labelOf(this.focus)} (${fmtNs(T.total[this.focus])})` }));
  }

  nodeAt(x, y) {
    for (const n of this.nodes || []) if (y >= n.y * ROW && y < (n.y + 1) * ROW && x >= n.x && x < n.x + n.w) return n.node;
    return -1;
  }

  bind() {
    const pos = (e) => { const r = this.canvas.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };
    this.canvas.addEventListener("click", (e) => {
      const { x, y } = pos(e);
      const c = this.nodeAt(x, y);
      if (c < 0) return;
      const T = this.tree;
      this.focus = c === this.focus ? Math.max(T.parent[c], 0) : c;
      this.marked = c;
      // highlight the node's events and select the heaviest
      const rows = [];
      const d = this.store.data;
      for (let i = 0; i < d.n; i++) if (T.eventNode[i] === c) rows.push(i);
      if (rows.length) {
        const arr = Uint32Array.from(rows);
        this.store.setHighlight(arr, T.labelOf(c), "calltree");
        this.store.select(d.heaviest(arr), { zoom: true, source: "calltree" });
        if (T.kind[c] >= 2) this.store.emit("op", { name: T.labelOf(c), source: "calltree" });
      }
      this.draw();
    });
    this.canvas.addEventListener("mousemove", (e) => {
      const p = pos(e);
      const c = this.nodeAt(p.x, p.y);
      if (c < 0) { this.tooltip.style.display = "none"; return; }
      const T = this.tree;
      clear(this.tooltip).append(h("div", { class: "cnb-tip-title", text: T.labelOf(c) }),
        h("div", { text: `total ${fmtNs(T.total[c])} · self ${fmtNs(T.self[c])} · ${fmtCount(T.count[c])} calls` }),
        h("div", { class: "cnb-muted", text: ["", "module", "host op", "device task"][T.kind[c]] || "" }));
      this.tooltip.style.display = "block";
      this.tooltip.style.left = Math.min(p.x + 12, Math.max(this.wrap.clientWidth - this.tooltip.offsetWidth - 4, 0)) + "px";
      this.tooltip.style.top = (p.y + 14) + "px";
    });
    this.canvas.addEventListener("mouseleave", () => { this.tooltip.style.display = "none"; });
  }
}
