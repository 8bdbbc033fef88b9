// Diff view: two profiles side by side. Total change, per-op delta bars (total time, slower red, faster
// green), added/removed ops, and both timelines on one shared time scale (each from its own start).

import { h, fmtNs, fmtSignedNs, fmtCount } from "./dom.js";
import { Store } from "./store.js";
import { Timeline } from "./timeline.js";

export function linkViews(a, b) {
  let busy = false;
  const sync = (from, to) => (v) => {
    if (busy) return;
    busy = true;
    const off0 = v.t0 - from.home.t0;
    to.setView(to.home.t0 + off0, to.home.t0 + off0 + (v.t1 - v.t0));
    busy = false;
  };
  a.viewListeners.add(sync(a, b));
  b.viewListeners.add(sync(b, a));
  // a shared scale: both start at their own t=0 and span the longer of the two
  const span = Math.max(a.home.t1 - a.home.t0, b.home.t1 - b.home.t0);
  for (const t of [a, b]) { t.home = { t0: t.home.t0, t1: t.home.t0 + span }; t.view = { ...t.home }; }
}

export class DiffView {
  // `diff`: a Comparison as widgets/_tables.diff_payload encodes it (analyze/comparison computed every number)
  constructor(diff, dataA, dataB) {
    this.diff = diff;
    const [na, nb] = diff.names;
    const e = diff.e2e || {};
    const per = diff.per_step ? " per step" : "";
    const bk = diff.buckets || {};
    const head = h("div", { class: "cnb-diff-head" },
      h("span", { class: "mono", text: na }), h("span", { class: "cnb-muted", text: ` ${fmtNs(e.base_ns)} → ` }),
      h("span", { class: "mono", text: nb }), h("span", { class: "cnb-muted", text: ` ${fmtNs(e.new_ns)}${per} ` }),
      h("b", { class: e.delta_ns > 0 ? "cnb-worse" : "cnb-better",
        text: `${fmtSignedNs(e.delta_ns)} (${e.delta_pct === null || e.delta_pct === undefined ? "–" : (e.delta_pct >= 0 ? "+" : "") + e.delta_pct.toFixed(1) + " %"})` }),
      h("span", { class: "cnb-muted", text: ` ${e.verdict || ""} · ${bk.slower || 0} slower · ${bk.faster || 0} faster · ` +
        `${bk.added || 0} added · ${bk.removed || 0} removed · ${fmtCount(diff.total_rows)} ops compared` }));
    const d = diff.data;
    const n = (d.name || []).length;
    const maxAbs = Math.max(1, ...Array.from({ length: n }, (_, i) => Math.abs(d.delta_ns[i] || 0)));
    this.stores = [new Store(dataA), new Store(dataB)];
    const bars = h("div", { class: "cnb-delta-bars" });
    for (let i = 0; i < Math.min(n, 40); i++) {
      const dv = d.delta_ns[i] || 0;
      const w = (50 * Math.abs(dv)) / maxAbs;
      const bar = h("div", { class: "cnb-delta-track" },
        h("div", { class: "cnb-delta " + (dv > 0 ? "cnb-worse-bg" : "cnb-better-bg"),
          style: dv > 0 ? `left:50%;width:${w}%` : `left:${50 - w}%;width:${w}%` }));
      bars.appendChild(h("div", { class: "cnb-delta-row", "data-status": d.bucket[i], "data-name": d.name[i],
        title: `${d.name[i]}: total ${fmtNs(d.base_total_ns[i])} → ${fmtNs(d.new_total_ns[i])}, ` +
          `self ${fmtNs(d.base_self_ns[i])} → ${fmtNs(d.new_self_ns[i])}, calls ${d.base_count[i]} → ${d.new_count[i]}`,
        onclick: () => this.showOp(d.name[i]) },
      h("span", { class: "mono cnb-delta-name", text: d.name[i] }),
      h("span", { class: "cnb-badge cnb-badge-" + d.bucket[i], text: d.bucket[i] }),
      bar,
      h("span", { class: "num " + (dv > 0 ? "cnb-worse" : "cnb-better"), text: fmtSignedNs(dv) })));
    }
    this.timelines = [new Timeline(this.stores[0], { height: 260, title: na }), new Timeline(this.stores[1], { height: 260, title: nb })];
    linkViews(this.timelines[0], this.timelines[1]);
    this.el = h("div", { class: "cnb-diff" }, head,
      h("div", { class: "cnb-muted cnb-small", text: `per-op change (${diff.delta_of}); click an op to find it in both timelines` }),
      bars, ...this.timelines.map((t) => t.el));
  }

  showOp(name) {
    for (const s of this.stores) {
      const id = s.data.nameId(name);
      const rows = id >= 0 ? s.data.matching((k) => k === id) : new Uint32Array(0);
      s.setHighlight(rows, name, "diff");
    }
  }

  attached() { this.timelines.forEach((t) => t.invalidate()); }
}
