// Suggestion panel: the advisor's findings by estimated gain. A click shows the finding's evidence events
// on the timeline (highlight + zoom to them) and marks its ops in the hotspot table.

import { gainText } from "./overview.js";
import { h, clear, fmtNs, fmtCount, fmtBytes, plural } from "./dom.js";

function fmtEvidence(key, v) {
  if (typeof v === "number" && /(_ns|ns)$/.test(key)) return `${fmtNs(v)}  (${fmtCount(v)} ns)`;
  if (typeof v === "number" && /bytes$/.test(key)) return `${fmtBytes(v)}  (${fmtCount(v)} B)`;
  if (typeof v === "number" && /(pct|share)$/.test(key)) return `${v.toFixed(1)} %`;
  if (typeof v === "number") return Number.isInteger(v) ? fmtCount(v) : String(+v.toPrecision(4));
  return typeof v === "string" ? v : JSON.stringify(v);
}

const SEV_ORDER = { high: 0, medium: 1, low: 2, info: 3 };

export class FindingsPanel {
  constructor(store, findings, evidence, { note = "", onSelect } = {}) {
    this.store = store;
    this.findings = findings || [];
    this.evidence = evidence; // {offsets: Uint32Array, rows: Uint32Array}
    this.selected = -1;
    this.onSelect = onSelect;
    this.list = h("div", { class: "cnb-findings" });
    this.el = h("div", { class: "cnb-findings-panel" },
      h("div", { class: "cnb-toolbar" }, h("b", { text: "Suggestions" }),
        h("span", { class: "cnb-muted", text: this.findings.length
          ? `${plural(this.findings.length, "finding")}, largest estimated gain first · click one to see its evidence`
          : (note || "No findings for this profile.") })),
      this.list);
    this.render();
  }

  rowsOf(k) {
    if (!this.evidence) return new Uint32Array(0);
    const { offsets, rows } = this.evidence;
    return rows.subarray(offsets[k], offsets[k + 1]);
  }

  render() {
    const list = clear(this.list);
    this.findings.forEach((f, k) => {
      const gain = gainText(f);
      const card = h("div", { class: "cnb-finding" + (k === this.selected ? " selected" : ""), tabindex: "0",
        role: "button", "data-index": String(k), onclick: () => this.select(k),
        onkeydown: (e) => { if (e.key === "Enter") this.select(k); } },
      h("div", { class: "cnb-finding-head" },
        h("span", { class: "cnb-sev cnb-sev-" + (SEV_ORDER[f.severity] !== undefined ? f.severity : "info"), text: f.severity }),
        h("span", { class: "cnb-finding-title", text: f.title }),
        h("span", { class: "cnb-gain", text: gain })),
      h("div", { class: "cnb-muted cnb-small", text: `${f.category} · rule ${f.rule}` +
        (f.confidence !== null && f.confidence !== undefined ? ` · confidence ${(f.confidence * 100).toFixed(0)} %` : "") +
        (f.n_events ? ` · ${fmtCount(f.n_events)} evidence events` : "") }));
      if (k === this.selected) {
        if (f.suggestion) card.appendChild(h("div", { class: "cnb-suggestion", text: f.suggestion }));
        const kv = h("div", { class: "cnb-kv" });
        for (const [key, v] of Object.entries(f.evidence || {})) {
          kv.append(h("span", { class: "cnb-muted", text: key }), h("span", { class: "mono", text: fmtEvidence(key, v) }));
        }
        card.appendChild(kv);
        if (f.ops && f.ops.length) {
          card.appendChild(h("div", { class: "cnb-chain" }, h("span", { class: "cnb-muted", text: "ops: " }),
            ...f.ops.flatMap((op, j) => [j ? h("span", { class: "cnb-muted", text: ", " }) : null,
              h("button", { class: "cnb-link", type: "button", text: op, title: "show every occurrence",
                onclick: (e) => { e.stopPropagation(); this.store.showOp({ name: op }, "findings"); } })])));
        }
      }
      list.appendChild(card);
    });
    this.el.dataset.selected = String(this.selected);
  }

  select(k) {
    this.selected = k;
    const f = this.findings[k];
    let rows = this.rowsOf(k);
    if (!rows.length && f.ops && f.ops.length && this.store.data) {
      const ids = new Set(f.ops.map((o) => this.store.data.nameId(o)).filter((x) => x >= 0));
      rows = this.store.data.matching((c) => ids.has(c));
    }
    this.store.setHighlight(rows, "finding: " + f.title, "findings", { zoom: true });
    if (rows.length) this.store.select(this.store.data.heaviest(rows), { source: "findings" });
    this.store.emit("ops", { names: f.ops || [] });
    this.render();
    if (this.onSelect) this.onSelect(k);
  }
}
