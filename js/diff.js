// Diff view: two profiles side by side. Total change, per-op delta bars (self time, slower red, faster
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
  constructor(diff, dataA, dataB) {
    this.diff = diff;
    const [na, nb] = diff.names;
    const [wa, wb] = diff.wall_ns;
    const delta = wb - wa;
    const pct = wa ? (100 * delta) / wa : 0;
    const head = h("div", { class: "cnb-diff-head" },
      h("span", { class: "mono", text: na }), h("span", { class: "cnb-muted", text: ` ${fmtNs(wa)} → ` }),
      h("span", { class: "mono", text: nb }), h("span", { class: "cnb-muted", text: ` ${fmtNs(wb)} ` }),
      h("b", { class: delta > 0 ? "cnb-worse" : "cnb-better", text: `${fmtSignedNs(delta)} (${pct >= 0 ? "+" : ""}${pct.toFixed(1)} %)` }),
      h("span", { class: "cnb-muted", text: ` · ${diff.added} ops added · ${diff.removed} removed · ${fmtCount(diff.total_rows)} ops compared` }));
    const d = diff.data;
    const n = (d.name || []).length;
    const maxAbs = Math.max(1, ...Array.from({ length: n }, (_, i) => Math.abs(d.delta_self_ns[i])));
    this.stores = [new Store(dataA), new Store(dataB)];
    const bars = h("div", { class: "cnb-delta-bars" });
    for (let i = 0; i < Math.min(n, 40); i++) {
      const dv = d.delta_self_ns[i];
      const w = (50 * Math.abs(dv)) / maxAbs;
      const bar = h("div", { class: "cnb-delta-track" },
        h("div", { class: "cnb-delta " + (dv > 0 ? "cnb-worse-bg" : "cnb-better-bg"),
          style: dv > 0 ? `left:50%;width:${w}%` : `left:${50 - w}%;width:${w}%` }));
      bars.appendChild(h("div", { class: "cnb-delta-row", "data-status": d.status[i],
        title: `${d.name[i]}: self ${fmtNs(d.self_ns_a[i])} → ${fmtNs(d.self_ns_b[i])}, calls ${d.count_a[i]} → ${d.count_b[i]}`,
        onclick: () => this.showOp(d.name[i]) },
      h("span", { class: "mono cnb-delta-name", text: d.name[i] }),
      h("span", { class: "cnb-badge cnb-badge-" + d.status[i], text: d.status[i] }),
      bar,
      h("span", { class: "num " + (dv > 0 ? "cnb-worse" : "cnb-better"), text: fmtSignedNs(dv) })));
    }
    this.timelines = [new Timeline(this.stores[0], { height: 260, title: na }), new Timeline(this.stores[1], { height: 260, title: nb })];
    linkViews(this.timelines[0], this.timelines[1]);
    this.el = h("div", { class: "cnb-diff" }, head,
      h("div", { class: "cnb-muted cnb-small", text: "per-op change of self time (click an op to find it in both timelines)" }),
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
