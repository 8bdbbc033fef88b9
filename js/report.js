// The HTML report's interactive part (view "report"): the components of the tabbed ProfileView laid out as
// document sections, so the report reads top to bottom and prints, all linked through one Store:
//
//   [Comparison]  per-op deltas and both timelines on one scale (when the report has a baseline)
//   Timeline      lanes, zoom/pan/search, details
//   Suggestions   the advisor's findings; a click highlights the evidence on the timeline
//   Hotspots      sortable, filterable; a row click highlights the op's occurrences on the timeline
//   Call tree     built right away for small profiles, else when scrolled to (or before printing)
//   Charts        time breakdown per device, memory, utilisation (BokehJS is inlined in the page)
//
// The page around it (header, overview, run details, static fallbacks) is server-rendered HTML; see
// cann_nb/report. Section ids are the page's anchors (#timeline, #suggestions, ...).

import { h } from "./dom.js";
import { Store } from "./store.js";
import { Timeline } from "./timeline.js";
import { HotspotTable } from "./table.js";
import { FindingsPanel } from "./findings.js";
import { CallTree } from "./calltree.js";
import { Charts } from "./charts.js";
import { DiffView } from "./diff.js";

const EAGER_TREE_EVENTS = 300000; // above this the call tree waits until it is scrolled to

function section(id, title, note, ...children) {
  return h("section", { class: "cnb-rsec", id, "data-section": id },
    h("h2", { class: "cnb-rsec-title", text: title }),
    note ? h("div", { class: "cnb-muted cnb-small cnb-rsec-note", text: note }) : null,
    ...children);
}

function offscreen(el) {
  const r = el.getBoundingClientRect();
  return r.bottom < 40 || r.top > (window.innerHeight || 800) - 80;
}

// Build the sections into `root`. `data`/`base` are EventData (base: the baseline's events, or null),
// `evidence` the findings' evidence rows. Returns {cleanup, ready}: ready resolves when the charts are drawn.
export function buildReport(model, root, { data, base, evidence, onTimeline }) {
  const store = new Store(data);
  const cleanups = [];
  const sections = [];

  const diff = model.get("diff");
  let diffView = null;
  if (diff && diff.names && base && data) {
    diffView = new DiffView(diff, base, data);
    sections.push(section("comparison", "Per-op change and both timelines",
      `${diff.names[0]} (baseline) → ${diff.names[1]}: total time per op (new − base), slower in red, faster in green; ` +
      "the two timelines share one time scale", diffView.el));
  }

  const hasEvents = Boolean(data && data.n);
  let tl = null;
  if (hasEvents) {
    tl = new Timeline(store, { height: 480 });
    sections.push(section("timeline", "Timeline", "", tl.el));
    if (onTimeline) cleanups.push(onTimeline(store, tl));
  }

  const findings = new FindingsPanel(store, model.get("findings"), evidence, {
    note: model.get("findings_note"),
    onSelect: (k) => { model.set("selected_finding", k); },
  });
  const table = new HotspotTable(store, model.get("tables"), {
    groupBy: model.get("group_by"),
    onSelect: (name) => { model.set("selected_op", name); },
  });
  cleanups.push(() => table.destroy());
  sections.push(
    section("suggestions", `Suggestions (${(model.get("findings") || []).length})`,
      "estimated gains are savings on this profile's end-to-end time", findings.el),
    section("hotspots", "Hotspots", "", table.el));

  // a click in the table, the findings or the call tree shows its events on the timeline: bring it into view
  if (tl) {
    cleanups.push(store.on("highlight", ({ source }) => {
      if ((source === "table" || source === "findings" || source === "calltree") && offscreen(tl.canvas)) {
        tl.el.scrollIntoView({ block: "nearest" });
      }
    }));
  }

  let tree = null;
  if (hasEvents) {
    tree = new CallTree(store, { height: 360 });
    sections.push(section("calltree", "Call tree", "", tree.el));
    cleanups.push(() => tree.destroy());
  }

  const items = model.get("charts") || {};
  const charts = new Charts(model, items, model.get("bokeh_version"), ["breakdown", "memory", "utilization"]);
  sections.push(section("charts", "Time breakdown, memory and utilisation", "", charts.el));
  // a roofline point clicked: its op lit up on the timeline above
  const rfCharts = new Charts(model, items, model.get("bokeh_version"), ["roofline", "mfu"], {
    onOp: (d) => store.showOp({ name: d.name, cat: d.cat, shapes: d.shapes || undefined }, "roofline") });
  sections.push(section("roofline", "Roofline and MFU", "", rfCharts.el));
  cleanups.push(() => rfCharts.destroy());

  root.append(...sections);

  // first paint: the timelines now; the call tree when it comes into view (or before printing)
  if (tl) tl.invalidate();
  if (diffView) requestAnimationFrame(() => diffView.attached());
  const buildTree = () => { if (tree && !tree.tree) tree.ensure(); };
  if (tree) {
    if (data.n <= EAGER_TREE_EVENTS || typeof IntersectionObserver === "undefined") {
      setTimeout(buildTree, 0);
    } else {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); buildTree(); }
      }, { rootMargin: "200px" });
      io.observe(tree.el);
      cleanups.push(() => io.disconnect());
    }
    window.addEventListener("beforeprint", buildTree);
    cleanups.push(() => window.removeEventListener("beforeprint", buildTree));
  }
  // charts after the first frame, so the timeline is not kept waiting behind BokehJS
  const ready = new Promise((resolve) => setTimeout(() => Promise.all([charts.show(), rfCharts.show()]).then(resolve, resolve), 0));
  return { store, timeline: tl, ready, cleanup: () => { cleanups.forEach((f) => f && f()); if (tl) tl.destroy(); } };
}
