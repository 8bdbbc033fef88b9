// Overview: what ran, how long, where the time went, peak memory, top ops and the top findings.

import { h, fmtNs, fmtBytes, fmtCount } from "./dom.js";

// "saves ~12.3 ms (4.5 % of end-to-end)": the finding's own estimate and share (analyze/rules)
export function gainText(f) {
  if (f.est_gain_ns === null || f.est_gain_ns === undefined) return "gain unknown";
  const pct = f.est_gain_pct === null || f.est_gain_pct === undefined ? "" : ` (${f.est_gain_pct.toFixed(1)} % of end-to-end)`;
  return "saves ~" + fmtNs(f.est_gain_ns) + pct;
}

export function overview(ov, { onFinding, onOp, charts } = {}) {
  const card = (label, value, sub) => h("div", { class: "cnb-card" },
    h("div", { class: "cnb-muted cnb-small", text: label }), h("div", { class: "cnb-card-value", text: value }),
    sub ? h("div", { class: "cnb-muted cnb-small", text: sub }) : null);
  const peaks = Object.entries(ov.peak_memory || {});
  const cards = h("div", { class: "cnb-cards" },
    card("end-to-end", fmtNs(ov.wall_ns), ov.status + (ov.error ? " · " + ov.error : "")),
    card("events", fmtCount(ov.events), `${fmtCount(ov.memory_rows)} memory rows · ${fmtCount(ov.counter_rows)} samples`),
    card("peak memory", peaks.length ? fmtBytes(Math.max(...peaks.map(([, v]) => v))) : "–",
      peaks.map(([d, v]) => `${d} ${fmtBytes(v)}`).join(" · ")),
    card("findings", String(ov.n_findings || 0), ov.n_findings ? "see Suggestions" : ""));
  // every figure below is analyze.api.overview's (the report and analyze --json show the same)
  const bd = Object.entries(ov.devices || {});
  const pct = (x) => (x === null || x === undefined ? "–" : x.toFixed(1) + " %");
  const bdTable = h("table", { class: "cnb-table cnb-compact" },
    h("thead", {}, h("tr", {}, ...[["device"], ["busy"], ["share", "busy share of end-to-end"], ["idle"], ["compute"],
      ["comm", "communication"], ["memcpy"]].map(([t, title]) => h("th", { class: t === "device" ? "" : "num", text: t, title: title || t })))),
    h("tbody", {}, ...bd.map(([dev, v]) => h("tr", {},
      h("td", { text: dev }), h("td", { class: "num", text: fmtNs(v.busy_ns) }), h("td", { class: "num", text: pct(v.busy_pct) }),
      h("td", { class: "num", text: fmtNs(v.idle_ns) }), h("td", { class: "num", text: fmtNs(v.compute_ns) }),
      h("td", { class: "num", text: fmtNs(v.communication_ns) }), h("td", { class: "num", text: fmtNs(v.memcpy_ns) })))));
  const shares = ov.shares || {};
  const top = ov.top || { name: [] };
  const topList = h("table", { class: "cnb-table cnb-compact" },
    h("thead", {}, h("tr", {}, h("th", { text: "top ops by self time" }), h("th", { text: "cat" }), h("th", { class: "num", text: "self" }), h("th", { class: "num", text: "share" }))),
    h("tbody", {}, ...top.name.map((n, i) => h("tr", { onclick: () => onOp && onOp(n, top.cat[i]) },
      h("td", { class: "mono", text: n }), h("td", { text: top.cat[i] }), h("td", { class: "num", text: fmtNs(top.self_ns[i]) }),
      h("td", { class: "num", text: pct(top.share_pct[i]) })))));
  const fl = h("div", { class: "cnb-findings" }, ...(ov.top_findings || []).map((f, k) => h("div", {
    class: "cnb-finding", role: "button", tabindex: "0", onclick: () => onFinding && onFinding(k) },
  h("div", { class: "cnb-finding-head" }, h("span", { class: "cnb-sev cnb-sev-" + f.severity, text: f.severity }),
    h("span", { class: "cnb-finding-title", text: f.title }),
    h("span", { class: "cnb-gain", text: gainText(f) })))));
  const collectors = Object.entries(ov.collectors || {}).map(([k, v]) => `${k}: ${v}`).join(" · ");
  return h("div", { class: "cnb-overview" },
    h("div", { class: "cnb-ov-head" }, h("b", { text: ov.name || "profile" }),
      h("span", { class: "cnb-muted", text: [ov.created, collectors].filter(Boolean).join(" · ") })),
    ov.budget_note ? h("div", { class: "cnb-muted cnb-small", text: "truncated: " + ov.budget_note }) : null,
    cards,
    h("div", { class: "cnb-cols" },
      h("div", {}, h("h4", { text: "Where the time went" }), bdTable,
        h("div", { class: "cnb-muted cnb-small", text: shares.devices || "" }), charts ? charts.el : null),
      h("div", {}, h("h4", { text: "Hotspots" }), topList, h("div", { class: "cnb-muted cnb-small", text: shares.hotspots || "" }),
        h("h4", { text: "Top suggestions" }), (ov.top_findings || []).length ? fl : h("div", { class: "cnb-muted", text: "No findings." }))));
}
