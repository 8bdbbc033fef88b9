// Hotspot table: sortable (header click), filterable (text), grouped by op / op+shapes / module.
// A row click highlights the op's occurrences on the timeline and zooms to the heaviest one.

import { h, clear, fmtNs, fmtCount } from "./dom.js";

const LABELS = { name: "op", "name+shapes": "op + shapes", module: "module" };
const COLS = [
  ["name", "op", "text"], ["shapes", "shapes", "text"], ["module", "module", "text"], ["cat", "cat", "text"],
  ["count", "count", "int"], ["self_ns", "self", "ns"], ["total_ns", "total", "ns"], ["mean_ns", "mean", "ns"],
  ["p99_ns", "p99", "ns"], ["share_pct", "share of side", "pct"],
];
const MAX_ROWS = 400;

export class HotspotTable {
  constructor(store, tables, { groupBy = "name", onGroupBy, onSelect } = {}) {
    this.store = store;
    this.tables = tables || {};
    this.groupBy = this.tables[groupBy] ? groupBy : Object.keys(this.tables)[0] || "name";
    this.sort = { col: "self_ns", desc: true };
    this.filter = "";
    this.selectedKey = null;
    this.marked = new Set(); // op names marked by a finding or the call tree
    this.onGroupBy = onGroupBy;
    this.onSelect = onSelect;
    this.filterInput = h("input", { class: "cnb-search", type: "search", placeholder: "filter ops…", "aria-label": "filter ops" });
    this.filterInput.addEventListener("input", () => { this.filter = this.filterInput.value.trim().toLowerCase(); this.render(); });
    this.groupSel = h("select", { class: "cnb-select", "aria-label": "group by" },
      ...Object.keys(this.tables).map((g) => h("option", { value: g, text: "group by " + (LABELS[g] || g) })));
    this.groupSel.value = this.groupBy;
    this.groupSel.addEventListener("change", () => { this.groupBy = this.groupSel.value; this.selectedKey = null; this.render(); if (this.onGroupBy) this.onGroupBy(this.groupBy); });
    this.info = h("span", { class: "cnb-muted" });
    this.tbody = h("tbody");
    this.thead = h("thead");
    this.el = h("div", { class: "cnb-hotspots" },
      h("div", { class: "cnb-toolbar" }, this.groupSel, this.filterInput, this.info),
      h("div", { class: "cnb-table-wrap" }, h("table", { class: "cnb-table" }, this.thead, this.tbody)));
    this.unsubs = [
      store.on("op", ({ name, source }) => { if (source !== "table") { this.marked = new Set(name ? [name] : []); this.render(); } }),
      store.on("ops", ({ names }) => { this.marked = new Set(names || []); this.render(true); }),
    ];
    this.render();
  }

  destroy() { this.unsubs.forEach((f) => f()); }

  rows() {
    const t = this.tables[this.groupBy];
    if (!t) return { cols: [], idx: [], data: {}, total: 0 };
    const data = t.data;
    const n = (data[t.columns[0]] || []).length;
    let idx = Array.from({ length: n }, (_, i) => i);
    if (this.filter) {
      const keys = ["name", "shapes", "module", "cat"].filter((c) => data[c]);
      idx = idx.filter((i) => keys.some((c) => String(data[c][i]).toLowerCase().includes(this.filter)));
    }
    const { col, desc } = this.sort;
    if (data[col]) {
      const v = data[col];
      idx.sort((a, b) => {
        const x = v[a], y = v[b];
        const r = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return desc ? -r : r;
      });
    }
    const cols = COLS.filter(([c]) => data[c] !== undefined);
    return { cols, idx, data, total: t.total_rows || n, shipped: n };
  }

  keyOf(data, i) {
    return [data.name?.[i], data.cat?.[i], data.shapes?.[i], data.module?.[i]].join("\u0001");
  }

  render(scrollToMarked = false) {
    const { cols, idx, data, total, shipped } = this.rows();
    clear(this.thead).appendChild(h("tr", {}, ...cols.map(([c, label, kind]) => {
      const arrow = this.sort.col === c ? (this.sort.desc ? " ▾" : " ▴") : "";
      const shareOf = c === "share_pct" ? ((this.tables[this.groupBy] || {}).share_of || "") + "; " : "";
      return h("th", { class: kind === "text" ? "" : "num", "data-col": c, title: shareOf + "sort by " + label,
        onclick: () => { this.sort = { col: c, desc: this.sort.col === c ? !this.sort.desc : kind !== "text" }; this.render(); } },
      label + arrow);
    })));
    const body = clear(this.tbody);
    let firstMarked = null;
    for (const i of idx.slice(0, MAX_ROWS)) {
      const key = this.keyOf(data, i);
      const marked = data.name ? this.marked.has(data.name[i]) : data.module && this.marked.has(data.module[i]);
      const tr = h("tr", { class: (key === this.selectedKey ? "selected " : "") + (marked ? "marked" : ""),
        onclick: () => this.click(data, i, key) });
      if (marked && !firstMarked) firstMarked = tr;
      for (const [c, , kind] of cols) {
        const v = data[c][i];
        const text = kind === "ns" ? fmtNs(v) : kind === "int" ? fmtCount(v) : kind === "pct" ? (v ?? 0).toFixed(1) + " %" : String(v ?? "");
        const td = h("td", { class: kind === "text" ? (c === "cat" ? "" : "mono") : "num", text, title: kind === "text" ? text : undefined });
        if (kind === "pct") td.appendChild(h("span", { class: "cnb-bar", style: `width:${Math.min(Math.max(v || 0, 0), 100)}%` }));
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    const shown = Math.min(idx.length, MAX_ROWS);
    this.info.textContent = `${fmtCount(shown)} of ${fmtCount(idx.length)} rows` +
      (total > shipped ? ` (top ${fmtCount(shipped)} of ${fmtCount(total)} by self time)` : "") +
      " · click a row to find it on the timeline";
    this.el.dataset.rows = String(shown);
    if (scrollToMarked && firstMarked && firstMarked.scrollIntoView) firstMarked.scrollIntoView({ block: "nearest" });
  }

  click(data, i, key) {
    this.selectedKey = key;
    this.marked = new Set();
    const spec = this.groupBy === "module" ? { module: data.module[i] }
      : { name: data.name[i], cat: data.cat[i], shapes: this.groupBy === "name+shapes" ? data.shapes[i] : undefined };
    const r = this.store.showOp(spec, "table");
    this.el.dataset.lastCount = String(r.rows.length);
    this.render();
    if (this.onSelect) this.onSelect(spec.name ?? spec.module ?? "");
  }
}
