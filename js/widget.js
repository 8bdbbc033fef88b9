// Entry of the widget bundle (anywidget's front-end contract: export default { render }). One bundle,
// several views picked by the model's `_view`: profile (tabbed), timeline, hotspots, findings, calltree,
// charts, diff, and report (the HTML report's sections, see report.js). Only
// model.get/set/on/off/save_changes/send are used, so a read-only static host (see host.js, used by the
// HTML report) renders the same views.

import css from "./style.css";
import { h, clear, debounce } from "./dom.js";
import { EventData, decodeColumn } from "./data.js";
import { Store } from "./store.js";
import { Timeline } from "./timeline.js";
import { HotspotTable } from "./table.js";
import { FindingsPanel } from "./findings.js";
import { CallTree } from "./calltree.js";
import { Charts } from "./charts.js";
import { overview } from "./overview.js";
import { DiffView } from "./diff.js";
import { buildReport } from "./report.js";
import { clusterView } from "./cluster.js";

export { createStaticModel, renderStatic } from "./host.js";
export { buildTree } from "./calltree.js";
export { rowRects, hitTest } from "./lod.js";

function save(model) { try { model.save_changes(); } catch (e) { /* static host */ } }

async function loadEvents(model, key = "timeline") {
  const payload = model.get(key);
  if (!payload || payload.n === undefined) return null;
  return await EventData.load(payload);
}

async function loadEvidence(model) {
  const ev = model.get("evidence");
  if (!ev || !ev.offsets) return null;
  const [offsets, rows] = await Promise.all([decodeColumn(ev.offsets), decodeColumn(ev.rows)]);
  return { offsets, rows };
}

// two-way link of a timeline with the model's traits; returns a cleanup function
function syncTimeline(model, store, tl, t0) {
  const offs = [];
  const on = (name, fn) => { model.on(name, fn); offs.push(() => model.off && model.off(name, fn)); };
  offs.push(store.on("select", ({ index, source }) => {
    if (source === "model" || model.get("selected_row") === index) return;
    model.set("selected_row", index); save(model);
  }));
  on("change:selected_row", () => {
    const r = model.get("selected_row");
    if (r !== store.selected) store.select(r, { zoom: r >= 0, source: "model" });
  });
  on("change:highlight_rows", async () => {
    const hr = model.get("highlight_rows");
    if (!hr || !hr.rows) return;
    const rows = await decodeColumn(hr.rows);
    store.setHighlight(rows, "from Python", "model", { zoom: true });
  });
  on("change:highlight_op", () => { const op = model.get("highlight_op"); if (op) store.showOp({ name: op }, "model"); });
  on("change:viewport", () => {
    const v = model.get("viewport");
    if (v && v.length === 2 && (v[0] !== tl.view.t0 || v[1] !== tl.view.t1)) tl.setView(v[0], v[1], { silent: true });
  });
  on("change:search", () => {
    const q = model.get("search") || "";
    if (tl.search.value !== q) { tl.search.value = q; tl.runSearch(q); }
  });
  tl.onSearch = (q) => { if (model.get("search") !== q) { model.set("search", q); save(model); } };
  tl.viewListeners.add(debounce((v) => { model.set("viewport", [v.t0, v.t1]); save(model); }, 400));
  const pushStats = debounce(() => {
    const s = tl.stats;
    const sorted = [...s.frameMs].sort((a, b) => a - b);
    model.set("render_stats", { first_draw_ms: s.firstDrawAt - t0, draws: s.draws,
      median_frame_ms: sorted[Math.floor(sorted.length / 2)] || 0, last_rects: s.lastRects || 0 });
    save(model);
  }, 500);
  tl.onDraw = (t) => {
    if (t.stats.draws === 1) t.el.dataset.firstDrawMs = String(t.stats.firstDrawAt - t0);
    pushStats();
  };
  // initial values set from Python before display
  const v = model.get("viewport");
  if (v && v.length === 2) tl.setView(v[0], v[1], { silent: true });
  const r = model.get("selected_row");
  if (r >= 0) store.select(r, { zoom: true, source: "model" });
  if (model.get("search")) { tl.search.value = model.get("search"); tl.runSearch(model.get("search")); }
  if (model.get("highlight_op")) store.showOp({ name: model.get("highlight_op") }, "model");
  return () => offs.forEach((f) => f());
}

const VIEWS = {
  async timeline(model, root, t0) {
    const data = await loadEvents(model);
    const store = new Store(data);
    const tl = new Timeline(store, { height: 560 });
    root.appendChild(tl.el);
    const off = syncTimeline(model, store, tl, t0);
    tl.invalidate();
    return () => { off(); tl.destroy(); };
  },

  async hotspots(model, root) {
    const store = new Store(null);
    const table = new HotspotTable(store, model.get("tables"), {
      groupBy: model.get("group_by"),
      onGroupBy: (g) => { model.set("group_by", g); save(model); },
      onSelect: (name) => { model.set("selected_op", name); save(model); },
    });
    root.appendChild(table.el);
    return () => table.destroy();
  },

  async findings(model, root, t0) {
    const [data, evidence] = await Promise.all([loadEvents(model), loadEvidence(model)]);
    const store = new Store(data);
    const panel = new FindingsPanel(store, model.get("findings"), evidence, {
      note: model.get("findings_note"), onSelect: (k) => { model.set("selected_finding", k); save(model); } });
    root.appendChild(panel.el);
    let cleanup = () => {};
    if (data) {
      const tl = new Timeline(store, { height: 320 });
      root.appendChild(tl.el);
      const off = syncTimeline(model, store, tl, t0);
      tl.invalidate();
      cleanup = () => { off(); tl.destroy(); };
    }
    return cleanup;
  },

  async calltree(model, root, t0) {
    const data = await loadEvents(model);
    const store = new Store(data);
    const tree = new CallTree(store);
    const tl = new Timeline(store, { height: 300 });
    root.append(tree.el, tl.el);
    const off = syncTimeline(model, store, tl, t0);
    requestAnimationFrame(() => { tree.ensure(); tl.invalidate(); });
    return () => { off(); tl.destroy(); tree.destroy(); };
  },

  async charts(model, root) {
    const charts = new Charts(model, model.get("charts"), model.get("bokeh_version"));
    root.appendChild(charts.el);
    charts.show();
  },

  async diff(model, root) {
    const [a, b] = await Promise.all([loadEvents(model, "timeline"), loadEvents(model, "timeline_b")]);
    const view = new DiffView(model.get("diff"), a, b);
    root.appendChild(view.el);
    requestAnimationFrame(() => view.attached());
  },

  async cluster(model, root) {
    const view = await clusterView(model.get("cluster") || {}, {
      onRank: (rank) => { model.set("selected_rank", rank); save(model); } });
    root.appendChild(view);
  },

  async report(model, root, t0) {
    const [data, evidence, base] = await Promise.all([loadEvents(model), loadEvidence(model), loadEvents(model, "baseline")]);
    const r = buildReport(model, root, { data, base, evidence, onTimeline: (store, tl) => syncTimeline(model, store, tl, t0) });
    r.ready.then(() => { root.dataset.charts = "1"; });
    return r.cleanup;
  },

  async profile(model, root, t0) {
    const [data, evidence] = await Promise.all([loadEvents(model), loadEvidence(model)]);
    const store = new Store(data);
    const tl = new Timeline(store, { height: 560 });
    const table = new HotspotTable(store, model.get("tables"), {
      groupBy: model.get("group_by"),
      onGroupBy: (g) => { model.set("group_by", g); save(model); },
      onSelect: (name) => { model.set("selected_op", name); save(model); },
    });
    const findings = new FindingsPanel(store, model.get("findings"), evidence, {
      note: model.get("findings_note"), onSelect: (k) => { model.set("selected_finding", k); save(model); } });
    const tree = new CallTree(store, { height: 360 });
    const items = model.get("charts") || {};
    const bdCharts = new Charts(model, items, model.get("bokeh_version"), ["breakdown"]);
    const memCharts = new Charts(model, items, model.get("bokeh_version"), ["memory", "utilization"]);
    // a roofline point clicked: that op (and shapes) in the hotspot table's tab, lit up on the timeline
    const rfCharts = new Charts(model, items, model.get("bokeh_version"), ["roofline", "mfu"], {
      onOp: (d) => { go("hotspots"); store.showOp({ name: d.name, cat: d.cat, shapes: d.shapes || undefined }, "roofline"); } });
    const tabs = {};
    let current = null;
    const go = (name) => select(name);
    const ov = overview(model.get("overview") || {}, {
      charts: bdCharts,
      onFinding: (k) => { go("suggestions"); findings.select(k); },
      onOp: (name, cat) => { go("hotspots"); store.showOp({ name, cat }, "overview"); },
    });
    const slot = () => h("div", { class: "cnb-tl-slot" });
    const panels = {
      overview: h("div", { class: "cnb-panel" }, ov),
      timeline: h("div", { class: "cnb-panel" }, slot()),
      hotspots: h("div", { class: "cnb-panel" }, table.el, slot()),
      calltree: h("div", { class: "cnb-panel" }, tree.el, slot()),
      suggestions: h("div", { class: "cnb-panel" }, findings.el, slot()),
      memory: h("div", { class: "cnb-panel" }, memCharts.el),
      roofline: h("div", { class: "cnb-panel" }, rfCharts.el),
    };
    const labels = { overview: "Overview", timeline: "Timeline", hotspots: "Hotspots", calltree: "Call tree",
      suggestions: `Suggestions (${(model.get("findings") || []).length})`, memory: "Memory", roofline: "Roofline" };
    const bar = h("div", { class: "cnb-tabs", role: "tablist" });
    for (const [name, label] of Object.entries(labels)) {
      tabs[name] = h("button", { class: "cnb-tab", role: "tab", type: "button", "data-tab": name, onclick: () => select(name, true) }, label);
      bar.appendChild(tabs[name]);
    }
    const body = h("div", { class: "cnb-tab-body" }, ...Object.values(panels));
    root.append(bar, body);
    function select(name, fromUser = false) {
      if (!panels[name]) name = "overview";
      if (current === name) return;
      current = name;
      for (const [k, p] of Object.entries(panels)) { p.hidden = k !== name; tabs[k].setAttribute("aria-selected", String(k === name)); tabs[k].classList.toggle("active", k === name); }
      root.dataset.tab = name;
      const s = panels[name].querySelector(".cnb-tl-slot");
      if (s) {
        s.appendChild(tl.el);
        tl.maxHeight = name === "timeline" ? 560 : 300;
        tl.layout();
        tl.invalidate();
      }
      if (name === "overview") bdCharts.show();
      if (name === "memory") memCharts.show();
      if (name === "roofline") rfCharts.show();
      if (name === "calltree") requestAnimationFrame(() => tree.ensure());
      if (fromUser && model.get("tab") !== name) { model.set("tab", name); save(model); }
    }
    const onTab = () => select(model.get("tab"));
    model.on("change:tab", onTab);
    const off = syncTimeline(model, store, tl, t0);
    select(model.get("tab") || "overview");
    // the timeline draws even while another tab shows, so that first paint is measured the same way
    return () => { off(); tl.destroy(); table.destroy(); tree.destroy(); rfCharts.destroy(); if (model.off) model.off("change:tab", onTab); };
  },
};

// The profiled cell's static summary is an output of its own just before this view (so that exports of
// notebooks saved with widget state still show it); once the view has rendered, it would say the same
// twice. JupyterLab, Notebook 7 and VS Code keep a notebook's outputs in one document.
function hideStaticSummary(token) {
  if (!token || typeof document === "undefined") return;
  for (const el of document.querySelectorAll(`[data-cnb-summary="${CSS.escape(token)}"]`)) {
    (el.closest(".jp-OutputArea-child") || el).style.display = "none";  // author CSS beats [hidden]
  }
}

async function render({ model, el }) {
  const t0 = performance.now();
  const root = h("div", { class: "cnb-root" });
  root.appendChild(h("style", { text: css }));
  const loading = h("div", { class: "cnb-muted cnb-loading", text: "Loading profile…" });
  root.appendChild(loading);
  el.appendChild(root);
  const view = model.get("_view");
  root.dataset.view = view;
  try {
    const fn = VIEWS[view];
    if (!fn) throw new Error(`unknown view ${JSON.stringify(view)}`);
    const cleanup = await fn(model, root, t0);
    loading.remove();
    root.dataset.ready = "1";
    hideStaticSummary(model.get("summary_token"));
    return cleanup;
  } catch (e) {
    console.error("cann_nb widget", e);
    clear(loading).appendChild(document.createTextNode("cann_nb: this view failed to render: " + (e && e.message ? e.message : String(e))));
    loading.className = "cnb-error";
    return undefined;
  }
}

export default { render };
