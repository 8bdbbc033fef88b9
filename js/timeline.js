// The timeline: one canvas, lanes per host thread and device stream grouped by device, counter lanes under
// each group. Wheel zooms at the cursor (pinch too), drag pans, shift+drag zooms to a box, double click
// resets; hover shows a tooltip, click shows details (parent chain, launched device tasks with flow
// arrows). No DOM node per event: rows are drawn from typed arrays through lod.js.

import { h, clear, fmtNs, fmtValue, fmtCount, plural, PALETTE, hashString, cssVar, debounce } from "./dom.js";
import { rowRects, hitTest, makeRectBuffer, counterColumns } from "./lod.js";
import { lowerBound } from "./data.js";

const LABEL_W = 180;
const AXIS_H = 24;
const ROW_H = 16;
const GROUP_H = 20;
const COUNTER_H = 36;
const MIN_SPAN_NS = 20;

function luminance(hex) {
  const v = parseInt(hex.slice(1), 16);
  return (0.299 * ((v >> 16) & 255) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255)) / 255;
}
const TEXT_ON = PALETTE.map((c) => (luminance(c) > 0.6 ? "#1f2328" : "#ffffff"));

function niceStep(span, target) {
  const raw = span / Math.max(target, 1);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

export class Timeline {
  constructor(store, { height = 460, title = "" } = {}) {
    this.store = store;
    const d = (this.data = store.data);
    this.maxHeight = height;
    this.home = { t0: d.extent[0], t1: d.extent[1] };
    this.view = { ...this.home };
    this.collapsed = new Set();
    this.rects = makeRectBuffer();
    this.scrollTop = 0;
    this.viewListeners = new Set();
    this.stats = { draws: 0, firstDrawAt: null, frameMs: [] };
    this.searchCursor = -1;
    this.colorOf = new Uint8Array(d.names.length);
    d.names.forEach((s, k) => { this.colorOf[k] = hashString(s) % PALETTE.length; });

    this.search = h("input", { class: "cnb-search", type: "search", placeholder: "search names (Enter: next match)",
      "aria-label": "search event names" });
    this.search.size = this.search.placeholder.length + 2;  // wide enough for its hint (min-width alone cut it)
    this.matchInfo = h("span", { class: "cnb-muted" });
    const btn = (text, title, fn) => h("button", { class: "cnb-btn", title, onclick: fn, type: "button" }, text);
    this.toolbar = h("div", { class: "cnb-toolbar" },
      title ? h("b", { text: title }) : null,
      this.search, this.matchInfo,
      h("span", { class: "cnb-spacer" }),
      btn("Zoom to selection", "zoom to the selected event", () => this.zoomToEvent(this.store.selected)),
      btn("Clear", "clear highlight and selection (Esc)", () => { this.store.clearHighlight("timeline"); this.store.select(-1); }),
      btn("Reset", "show everything (double click, 0)", () => this.reset()),
      h("span", { class: "cnb-muted cnb-hint", text: "wheel: zoom · drag: pan · shift+drag: box zoom · click: details" }));
    this.canvas = h("canvas", { class: "cnb-tl-canvas", tabindex: "0", "aria-label": "timeline" });
    this.spacer = h("div", { class: "cnb-tl-spacer" });
    this.scroller = h("div", { class: "cnb-tl-scroller" }, this.canvas, this.spacer);
    this.tooltip = h("div", { class: "cnb-tooltip", role: "tooltip" });
    this.tooltip.style.display = "none";
    this.status = h("div", { class: "cnb-tl-status cnb-muted" });
    this.details = h("div", { class: "cnb-details" });
    this.el = h("div", { class: "cnb-timeline" }, this.toolbar,
      h("div", { class: "cnb-tl-wrap" }, this.scroller, this.tooltip), this.status, this.details);
    this.ctx = this.canvas.getContext("2d");
    this.el.__cnbStats = this.stats; // for benchmarks and tests: draw timings
    this.el.__cnbTimeline = this;    // for tests: geometry of events
    this.layout();
    this.bind();
    this.renderDetails();
    this.updateStatus();
  }

  // ---- layout --------------------------------------------------------------------------------------
  layout() {
    const d = this.data;
    const groups = [];
    const byGroup = new Map();
    const ensure = (g) => {
      if (!byGroup.has(g)) { const e = { name: g, lanes: [], counters: [] }; byGroup.set(g, e); groups.push(e); }
      return byGroup.get(g);
    };
    d.lanes.forEach((lane, li) => ensure(lane.group).lanes.push({ lane: li, rows: [] }));
    const laneEntry = new Map();
    for (const g of groups) for (const l of g.lanes) laneEntry.set(l.lane, l);
    for (let r = 0; r < d.rows.lane.length; r++) laneEntry.get(d.rows.lane[r]).rows.push(r);
    d.counters.forEach((s, si) => ensure(s.group).counters.push(si));
    const bands = [];
    this.bandOfRow = new Map();
    let y = 0;
    for (const g of groups) {
      bands.push({ kind: "group", group: g.name, y, h: GROUP_H,
        count: g.lanes.length + g.counters.length });
      y += GROUP_H;
      if (this.collapsed.has(g.name)) continue;
      for (const l of g.lanes) {
        l.rows.forEach((r, k) => {
          const b = { kind: "row", row: r, lane: l.lane, first: k === 0, y, h: ROW_H };
          bands.push(b); this.bandOfRow.set(r, b); y += ROW_H;
        });
        if (l.rows.length) y += 3; // gap between lanes
      }
      for (const si of g.counters) { bands.push({ kind: "counter", series: si, y, h: COUNTER_H }); y += COUNTER_H + 2; }
    }
    this.bands = bands;
    this.contentH = y;
    const vp = Math.min(this.maxHeight, y + AXIS_H);
    this.canvasH = Math.max(vp, AXIS_H + 40);
    this.spacer.style.height = Math.max(0, this.contentH + AXIS_H - this.canvasH) + "px";
    this.scroller.style.height = this.canvasH + "px";
  }

  resize() {
    const w = Math.max(this.scroller.clientWidth || this.el.clientWidth || 0, 0);
    if (!w) return false;
    const dpr = window.devicePixelRatio || 1;
    this.width = w;
    this.dpr = dpr;
    this.canvas.style.width = w + "px";
    this.canvas.style.height = this.canvasH + "px";
    const cw = Math.round(w * dpr), ch = Math.round(this.canvasH * dpr);
    if (this.canvas.width !== cw || this.canvas.height !== ch) { this.canvas.width = cw; this.canvas.height = ch; }
    return true;
  }

  // ---- view ----------------------------------------------------------------------------------------
  get plotW() { return Math.max((this.width || 0) - LABEL_W, 1); }
  get k() { return this.plotW / (this.view.t1 - this.view.t0); }

  setView(t0, t1, { silent = false } = {}) {
    const full = this.home.t1 - this.home.t0;
    let span = Math.min(Math.max(t1 - t0, MIN_SPAN_NS), full * 1.5 + MIN_SPAN_NS);
    const mid = (t0 + t1) / 2;
    t0 = mid - span / 2;
    const lo = this.home.t0 - full * 0.25, hi = this.home.t1 + full * 0.25;
    if (t0 < lo) t0 = lo;
    if (t0 + span > hi) t0 = Math.max(hi - span, lo);
    this.view = { t0, t1: t0 + span };
    this.invalidate();
    if (!silent) for (const fn of this.viewListeners) fn(this.view);
  }

  reset() { this.setView(this.home.t0, this.home.t1); }

  zoomAt(x, factor) {
    const { t0, t1 } = this.view;
    const at = t0 + (x - LABEL_W) / this.k;
    const span = (t1 - t0) * factor;
    this.setView(at - (at - t0) * factor, at - (at - t0) * factor + span);
  }

  panPx(dx) {
    const dt = dx / this.k;
    this.setView(this.view.t0 + dt, this.view.t1 + dt);
  }

  zoomToEvent(i, pad = 1.5) {
    if (i < 0) return;
    const d = this.data;
    const s = d.start[i], e = s + d.dur[i];
    const span = Math.max(e - s, 1000);
    this.setView(s - span * pad, e + span * pad);
    this.scrollToRow(d.rowOf(i));
  }

  zoomToRange(lo, hi) {
    const span = Math.max(hi - lo, 1000);
    this.setView(lo - span * 0.05, hi + span * 0.05);
  }

  scrollToRow(r) {
    const b = this.bandOfRow.get(r);
    if (!b) return;
    const vp = this.canvasH - AXIS_H;
    if (b.y < this.scroller.scrollTop || b.y + b.h > this.scroller.scrollTop + vp) {
      this.scroller.scrollTop = Math.max(b.y - vp / 3, 0);
    }
  }

  invalidate() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  // ---- drawing -------------------------------------------------------------------------------------
  colors() {
    const el = this.el;
    return {
      bg: cssVar(el, "--cnb-bg", "#ffffff"), fg: cssVar(el, "--cnb-fg", "#1f2328"),
      muted: cssVar(el, "--cnb-muted", "#656d76"), grid: cssVar(el, "--cnb-grid", "#eaeef2"),
      band: cssVar(el, "--cnb-band", "#f6f8fa"), accent: cssVar(el, "--cnb-accent", "#0969da"),
      hl: cssVar(el, "--cnb-hl", "#ff6a00"),
    };
  }

  draw() {
    if (!this.resize()) return;
    const t = performance.now();
    const d = this.data, ctx = this.ctx, c = this.colors();
    const W = this.width, H = this.canvasH, plotW = this.plotW;
    const { t0, t1 } = this.view;
    const k = this.k;
    const top = (this.scrollTop = this.scroller.scrollTop);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, W, H);
    const hl = this.store.highlight;
    const dim = !!(hl && hl.rows);
    const visible = this.bands.filter((b) => b.y + b.h > top && b.y < top + H - AXIS_H);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, AXIS_H, plotW, H - AXIS_H);
    ctx.clip();
    ctx.font = "11px system-ui, -apple-system, Segoe UI, sans-serif";
    ctx.textBaseline = "middle";
    let drawnRects = 0;
    const buckets = PALETTE.map(() => []);
    for (const b of visible) {
      const y = AXIS_H + b.y - top;
      if (b.kind === "group") {
        ctx.fillStyle = c.band;
        ctx.fillRect(LABEL_W, y, plotW, b.h);
      } else if (b.kind === "row") {
        const out = this.rects;
        out.n = 0;
        rowRects(d.start, d.dur, d.rowLo[b.row], d.rowHi[b.row], t0, t1, k, out);
        drawnRects += out.n;
        for (const bk of buckets) bk.length = 0;
        for (let r = 0; r < out.n; r++) buckets[this.colorOf[d.name[out.idx[r]]]].push(r);
        for (let ci = 0; ci < PALETTE.length; ci++) {
          const bk = buckets[ci];
          if (!bk.length) continue;
          ctx.fillStyle = PALETTE[ci];
          for (const merged of [false, true]) { // merged runs of sub-pixel events are drawn lighter
            ctx.globalAlpha = (dim ? 0.25 : 1) * (merged ? 0.6 : 1);
            ctx.beginPath();
            for (const r of bk) {
              if ((out.count[r] > 1) !== merged) continue;
              ctx.rect(LABEL_W + out.x0[r], y + 1, Math.max(out.x1[r] - out.x0[r], 1), b.h - 2);
            }
            ctx.fill();
          }
        }
        ctx.globalAlpha = dim ? 0.25 : 1;
        // names inside wide rects
        for (let r = 0; r < out.n; r++) {
          const w = out.x1[r] - out.x0[r];
          if (w < 40 || out.count[r] > 1) continue;
          const x0 = Math.max(out.x0[r], 0), x1 = Math.min(out.x1[r], plotW);
          const chars = Math.floor((x1 - x0 - 6) / 6.3);
          if (chars < 3) continue;
          const i = out.idx[r];
          const name = d.names[d.name[i]];
          ctx.fillStyle = TEXT_ON[this.colorOf[d.name[i]]];
          ctx.fillText(name.length > chars ? name.slice(0, chars - 1) + "…" : name, LABEL_W + x0 + 3, y + b.h / 2 + 0.5);
        }
        ctx.globalAlpha = 1;
      } else if (b.kind === "counter") {
        this.drawCounter(b, y, c);
      }
    }
    if (dim) this.drawHighlight(visible, top, c);
    this.drawSelection(top, c);
    ctx.restore();
    this.drawGutter(visible, top, c);
    this.drawAxis(c);
    if (this.box) {
      ctx.fillStyle = "rgba(9,105,218,0.12)";
      ctx.strokeStyle = c.accent;
      const x0 = Math.min(this.box.x0, this.box.x1), x1 = Math.max(this.box.x0, this.box.x1);
      ctx.fillRect(x0, AXIS_H, x1 - x0, H - AXIS_H);
      ctx.strokeRect(x0 + 0.5, AXIS_H + 0.5, x1 - x0, H - AXIS_H - 1);
    }
    const ms = performance.now() - t;
    const s = this.stats;
    s.draws++;
    s.lastRects = drawnRects;
    s.frameMs.push(ms);
    if (s.frameMs.length > 600) s.frameMs.shift();
    if (s.firstDrawAt === null) s.firstDrawAt = performance.now();
    this.el.dataset.draws = String(s.draws);
    this.el.dataset.view = `${t0},${this.view.t1}`;
    this.el.dataset.rects = String(drawnRects);
    this.updateStatus();
    if (this.onDraw) this.onDraw(this);
  }

  drawCounter(b, y, c) {
    const s = this.data.counters[b.series];
    const ctx = this.ctx;
    const { t0, t1 } = this.view;
    const k = this.k;
    // utilisation from 0 to 100 %, anything else over its own range so that changes show
    const lo = s.unit === "%" ? 0 : s.min, hi = s.unit === "%" ? Math.max(100, s.max) : s.max;
    const yOf = (v) => y + b.h - 3 - ((v - lo) / (hi - lo || 1)) * (b.h - 8);
    const color = PALETTE[hashString(s.group + s.label) % PALETTE.length];
    ctx.fillStyle = c.band;
    ctx.fillRect(LABEL_W, y, this.plotW, b.h);
    const r = counterColumns(s.ts, s.val, t0, t1, k, this.plotW);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.globalAlpha = 0.85;
    if (r.points) {
      ctx.beginPath();
      r.points.forEach(([x, v], j) => {
        const yy = yOf(v);
        if (j === 0) ctx.moveTo(LABEL_W + x, yy);
        else { ctx.lineTo(LABEL_W + x, yOf(r.points[j - 1][1])); ctx.lineTo(LABEL_W + x, yy); }
      });
      if (r.points.length) ctx.lineTo(LABEL_W + this.plotW, yOf(r.points[r.points.length - 1][1]));
      ctx.stroke();
    } else {
      ctx.beginPath();
      for (let col = 0; col < r.cols; col++) {
        if (r.max[col] === -Infinity) continue;
        const ya = yOf(r.max[col]), yb = yOf(r.min[col]);
        ctx.rect(LABEL_W + col, ya, 1, Math.max(yb - ya, 1));
      }
      ctx.fill();
    }
    // the peak, when in view
    const [pt, pv] = s.peak || [];
    if (pt !== undefined && pt >= t0 && pt <= t1) {
      const x = LABEL_W + (pt - t0) * k;
      ctx.globalAlpha = 1;
      ctx.beginPath();
      ctx.moveTo(x, yOf(pv) - 1); ctx.lineTo(x - 4, yOf(pv) - 7); ctx.lineTo(x + 4, yOf(pv) - 7); ctx.closePath();
      ctx.fill();
    }
    ctx.globalAlpha = 1;
  }

  drawHighlight(visible, top, c) {
    const d = this.data, ctx = this.ctx, rows = this.store.highlight.rows;
    const { t0, t1 } = this.view;
    const k = this.k;
    ctx.lineWidth = 1;
    for (const b of visible) {
      if (b.kind !== "row") continue;
      const lo = d.rowLo[b.row], hi = d.rowHi[b.row];
      let a = lowerBound(rows, 0, rows.length, lo);
      const z = lowerBound(rows, a, rows.length, hi);
      if (a >= z) continue;
      const y = AXIS_H + b.y - top;
      let lastX = -Infinity;
      ctx.beginPath();
      const fills = [];
      for (; a < z; a++) {
        const i = rows[a];
        const s = d.start[i], e = s + d.dur[i];
        if (e < t0 || s > t1) continue;
        const x0 = (s - t0) * k, x1 = (e - t0) * k;
        if (x1 < lastX + 1 && x1 - x0 < 2) continue; // same pixel as the last one drawn
        lastX = x1;
        fills.push(i, x0, Math.max(x1 - x0, 2));
      }
      for (let j = 0; j < fills.length; j += 3) {
        ctx.fillStyle = PALETTE[this.colorOf[d.name[fills[j]]]];
        ctx.fillRect(LABEL_W + fills[j + 1], y + 1, fills[j + 2], b.h - 2);
      }
      ctx.strokeStyle = c.hl;
      ctx.beginPath();
      for (let j = 0; j < fills.length; j += 3) ctx.rect(LABEL_W + fills[j + 1] - 0.5, y + 0.5, fills[j + 2] + 1, b.h - 1);
      ctx.stroke();
      for (let j = 0; j < fills.length; j += 3) {
        const x0 = Math.max(fills[j + 1], 0), x1 = Math.min(fills[j + 1] + fills[j + 2], this.plotW);
        const chars = Math.floor((x1 - x0 - 6) / 6.3);
        if (chars < 3) continue;
        const i = fills[j], name = d.names[d.name[i]];
        ctx.fillStyle = TEXT_ON[this.colorOf[d.name[i]]];
        ctx.fillText(name.length > chars ? name.slice(0, chars - 1) + "…" : name, LABEL_W + x0 + 3, y + b.h / 2 + 0.5);
      }
    }
  }

  eventBox(i, top) {
    const d = this.data;
    const b = this.bandOfRow.get(d.rowOf(i));
    if (!b) return null;
    const { t0 } = this.view;
    const x0 = LABEL_W + (d.start[i] - t0) * this.k;
    const x1 = LABEL_W + (d.start[i] + d.dur[i] - t0) * this.k;
    return { x0, x1: Math.max(x1, x0 + 2), y: AXIS_H + b.y - top, h: b.h };
  }

  drawSelection(top, c) {
    const i = this.store.selected;
    if (i < 0 || i >= this.data.n) return;
    const ctx = this.ctx;
    const box = this.eventBox(i, top);
    if (box) {
      ctx.lineWidth = 2;
      ctx.strokeStyle = c.fg;
      ctx.strokeRect(box.x0 - 1, box.y, box.x1 - box.x0 + 2, box.h);
    }
    // flow arrows: launch -> device tasks, or from this task's launch
    const d = this.data;
    const pairs = [];
    for (const j of d.launched.get(i)) pairs.push([i, j]);
    for (const j of d.launchedBy.get(i)) pairs.push([j, i]);
    ctx.strokeStyle = c.accent;
    ctx.fillStyle = c.accent;
    ctx.lineWidth = 1.5;
    for (const [a, b] of pairs.slice(0, 200)) {
      const A = this.eventBox(a, top), B = this.eventBox(b, top);
      if (!A || !B) continue;
      const ax = A.x0, ay = A.y + A.h / 2, bx = B.x0, by = B.y + B.h / 2;
      ctx.beginPath();
      ctx.moveTo(ax, ay);
      const mx = (ax + bx) / 2;
      ctx.bezierCurveTo(mx, ay, mx, by, bx, by);
      ctx.stroke();
      const dir = by >= ay ? 1 : -1;
      ctx.beginPath();
      ctx.moveTo(bx, by); ctx.lineTo(bx - 7, by - 4 * dir); ctx.lineTo(bx - 7, by + 4 * dir); ctx.closePath();
      ctx.fill();
    }
    ctx.lineWidth = 1;
  }

  drawGutter(visible, top, c) {
    const ctx = this.ctx, d = this.data;
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, AXIS_H, LABEL_W, this.canvasH - AXIS_H);
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS_H, LABEL_W - 4, this.canvasH - AXIS_H);
    ctx.clip();
    ctx.textBaseline = "middle";
    for (const b of visible) {
      const y = AXIS_H + b.y - top;
      if (b.kind === "group") {
        ctx.fillStyle = c.band;
        ctx.fillRect(0, y, LABEL_W, b.h);
        ctx.fillStyle = c.fg;
        ctx.font = "bold 11px system-ui, sans-serif";
        ctx.fillText((this.collapsed.has(b.group) ? "▸ " : "▾ ") + b.group, 6, y + b.h / 2 + 0.5);
      } else if (b.kind === "row" && b.first) {
        ctx.fillStyle = c.fg;
        ctx.font = "11px system-ui, sans-serif";
        const name = d.lanes[b.lane].name;
        const short = name.includes("/") ? name.slice(name.indexOf("/") + 1) : name;
        ctx.fillText(short, 14, y + b.h / 2 + 0.5);
        ctx.strokeStyle = c.grid;
        ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(this.width, y + 0.5); ctx.stroke();
      } else if (b.kind === "counter") {
        const s = d.counters[b.series];
        ctx.fillStyle = c.fg;
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillText(s.label, 14, y + 10);
        ctx.fillStyle = c.muted;
        ctx.font = "10px system-ui, sans-serif";
        ctx.fillText("max " + fmtValue(s.max, s.unit), 14, y + 24);
      }
    }
    ctx.restore();
    ctx.strokeStyle = c.grid;
    ctx.beginPath(); ctx.moveTo(LABEL_W - 0.5, AXIS_H); ctx.lineTo(LABEL_W - 0.5, this.canvasH); ctx.stroke();
  }

  drawAxis(c) {
    const ctx = this.ctx;
    const { t0, t1 } = this.view;
    const base = this.home.t0;
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, this.width, AXIS_H);
    const step = niceStep(t1 - t0, this.plotW / 110);
    const k = this.k;
    ctx.strokeStyle = c.grid;
    ctx.fillStyle = c.muted;
    ctx.font = "10px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const first = Math.ceil((t0 - base) / step) * step + base;
    ctx.beginPath();
    for (let tt = first; tt <= t1; tt += step) {
      const x = Math.round(LABEL_W + (tt - t0) * k) + 0.5;
      ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, AXIS_H);
      ctx.fillText(fmtNs(tt - base), x + 3, AXIS_H / 2);
    }
    ctx.stroke();
    ctx.strokeStyle = c.grid;
    ctx.beginPath(); ctx.moveTo(0, AXIS_H - 0.5); ctx.lineTo(this.width, AXIS_H - 0.5); ctx.stroke();
    ctx.fillStyle = c.fg;
    ctx.fillText("span " + fmtNs(t1 - t0), 6, AXIS_H / 2);
  }

  updateStatus() {
    const d = this.data;
    const parts = [`${plural(d.n, "event")} in ${plural(d.lanes.length, "lane")}`];
    if (this.stats.lastRects !== undefined) parts.push(`${fmtCount(this.stats.lastRects)} rects drawn (sub-pixel events merged)`);
    if (d.hidden) parts.push(`${fmtCount(d.hidden)} events shorter than ${fmtNs(d.hiddenBelowNs)} left out of this view`);
    if (d.flatCounters) parts.push(`${fmtCount(d.flatCounters)} constant counters not drawn (values in profile.counters)`);
    const hl = this.store.highlight;
    if (hl && hl.rows) parts.push(`highlight: ${hl.label ? hl.label + " · " : ""}${fmtCount(hl.rows.length)} events`);
    this.status.textContent = parts.join(" · ");
  }

  // ---- interaction ---------------------------------------------------------------------------------
  bind() {
    const cv = this.canvas;
    const pos = (e) => { const r = cv.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };
    cv.addEventListener("wheel", (e) => {
      const { x } = pos(e);
      if (x < LABEL_W) return; // the gutter scrolls the lanes natively
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const dx = e.deltaX * unit, dy = e.deltaY * unit;
      if (e.shiftKey || Math.abs(dx) > Math.abs(dy)) this.panPx(e.shiftKey && !dx ? dy : dx);
      else this.zoomAt(x, Math.exp(dy * (e.ctrlKey ? 0.01 : 0.002)));
    }, { passive: false });
    cv.addEventListener("mousedown", (e) => {
      if (e.button !== 0) return;
      const p = pos(e);
      if (p.x < LABEL_W) { this.clickGutter(p); return; }
      this.drag = { x: p.x, y: p.y, view: { ...this.view }, box: e.shiftKey, moved: false };
      const move = (ev) => {
        const q = pos(ev);
        const g = this.drag;
        if (!g) return;
        if (Math.abs(q.x - g.x) > 3 || Math.abs(q.y - g.y) > 3) g.moved = true;
        if (g.box) { this.box = { x0: g.x, x1: Math.max(q.x, LABEL_W) }; this.invalidate(); }
        else if (g.moved) {
          const dt = (q.x - g.x) / (this.plotW / (g.view.t1 - g.view.t0));
          this.setView(g.view.t0 - dt, g.view.t1 - dt);
        }
      };
      const up = (ev) => {
        window.removeEventListener("mousemove", move);
        window.removeEventListener("mouseup", up);
        const g = this.drag;
        this.drag = null;
        if (!g) return;
        if (g.box && this.box && Math.abs(this.box.x1 - this.box.x0) > 4) {
          const a = Math.min(this.box.x0, this.box.x1), b = Math.max(this.box.x0, this.box.x1);
          const { t0 } = this.view, k = this.k;
          this.box = null;
          this.setView(t0 + (a - LABEL_W) / k, t0 + (b - LABEL_W) / k);
        } else if (!g.moved) {
          this.box = null;
          const i = this.hit(pos(ev));
          this.store.select(i, { source: "timeline" });
        } else { this.box = null; this.invalidate(); }
      };
      window.addEventListener("mousemove", move);
      window.addEventListener("mouseup", up);
    });
    cv.addEventListener("mousemove", (e) => {
      if (this.drag) return;
      const p = pos(e);
      this.hover(p, e);
    });
    cv.addEventListener("mouseleave", () => { this.tooltip.style.display = "none"; });
    cv.addEventListener("dblclick", (e) => { if (pos(e).x >= LABEL_W) this.reset(); });
    cv.addEventListener("keydown", (e) => {
      const mid = LABEL_W + this.plotW / 2;
      const key = e.key.toLowerCase();
      if (key === "w") this.zoomAt(mid, 0.8);
      else if (key === "s") this.zoomAt(mid, 1.25);
      else if (key === "a") this.panPx(-this.plotW * 0.15);
      else if (key === "d") this.panPx(this.plotW * 0.15);
      else if (key === "0") this.reset();
      else if (key === "escape") { this.store.clearHighlight("timeline"); this.store.select(-1); }
      else return;
      e.preventDefault();
    });
    this.scroller.addEventListener("scroll", () => this.invalidate());
    const runSearch = debounce(() => this.runSearch(this.search.value), 120);
    this.search.addEventListener("input", runSearch);
    this.search.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); this.runSearch(this.search.value, true); }
    });
    this.unsubs = [
      this.store.on("select", ({ index, zoom }) => {
        if (zoom && index >= 0) this.zoomToEvent(index);
        else if (index >= 0) this.scrollToRow(this.data.rowOf(index));
        this.renderDetails();
        this.el.dataset.selected = String(index);
        this.invalidate();
      }),
      this.store.on("highlight", ({ zoom }) => {
        const hl = this.store.highlight;
        this.el.dataset.highlight = String(hl && hl.rows ? hl.rows.length : 0);
        if (zoom && hl && hl.rows && hl.rows.length) {
          const ext = this.data.extentOf(hl.rows);
          if (ext) this.zoomToRange(ext[0], ext[1]);
          this.scrollToRow(this.data.rowOf(hl.rows[0]));
        }
        this.invalidate();
      }),
    ];
    if (typeof ResizeObserver !== "undefined") {
      // redraw on width changes only: a redraw resizes the canvas, which must not retrigger this
      this.ro = new ResizeObserver(() => {
        const w = this.scroller.clientWidth;
        if (w !== this.observedW) { this.observedW = w; this.invalidate(); }
      });
      this.ro.observe(this.scroller);
    }
  }

  destroy() {
    (this.unsubs || []).forEach((f) => f());
    if (this.ro) this.ro.disconnect();
  }

  runSearch(q, next = false) {
    q = (q || "").trim().toLowerCase();
    if (!q) {
      if (this.store.highlight && this.store.highlight.source === "search") this.store.clearHighlight("search");
      this.matchInfo.textContent = "";
      if (this.onSearch) this.onSearch("");
      return;
    }
    const d = this.data;
    let rows = this.store.highlight && this.store.highlight.source === "search" && this.store.highlight.label === q
      ? this.store.highlight.rows : null;
    if (!rows) {
      rows = d.matching((k) => d.names[k].toLowerCase().includes(q));
      this.searchCursor = -1;
      this.store.setHighlight(rows, q, "search");
      if (this.onSearch) this.onSearch(q);
    }
    this.matchInfo.textContent = rows.length ? `${fmtCount(rows.length)} matches` : "no match";
    if (next && rows.length) {
      this.searchCursor = (this.searchCursor + 1) % rows.length;
      this.store.select(rows[this.searchCursor], { zoom: true, source: "search" });
    }
  }

  bandAt(y) {
    const cy = y - AXIS_H + this.scroller.scrollTop;
    for (const b of this.bands) if (cy >= b.y && cy < b.y + b.h) return b;
    return null;
  }

  hit({ x, y }) {
    if (x < LABEL_W || y < AXIS_H) return -1;
    const b = this.bandAt(y);
    if (!b || b.kind !== "row") return -1;
    const d = this.data;
    const t = this.view.t0 + (x - LABEL_W) / this.k;
    return hitTest(d.start, d.dur, d.rowLo[b.row], d.rowHi[b.row], t, 3 / this.k);
  }

  clickGutter({ y }) {
    const b = this.bandAt(y);
    if (b && b.kind === "group") {
      if (this.collapsed.has(b.group)) this.collapsed.delete(b.group); else this.collapsed.add(b.group);
      this.layout();
      this.invalidate();
    }
  }

  hover(p, e) {
    const tip = this.tooltip;
    const b = p.y >= AXIS_H && p.x >= LABEL_W ? this.bandAt(p.y) : null;
    let lines = null;
    if (b && b.kind === "row") {
      const i = this.hit(p);
      if (i >= 0) lines = this.describe(i);
    } else if (b && b.kind === "counter") {
      const s = this.data.counters[b.series];
      const t = this.view.t0 + (p.x - LABEL_W) / this.k;
      const j = Math.max(lowerBound(s.ts, 0, s.ts.length, t) - 1, 0);
      if (s.ts.length) lines = [[s.group + " · " + s.label, "title"], ["value", fmtValue(s.val[j], s.unit)],
        ["at", fmtNs(s.ts[j] - this.home.t0)], ["peak", fmtValue(s.peak[1], s.unit) + " at " + fmtNs(s.peak[0] - this.home.t0)]];
    }
    this.canvas.style.cursor = lines && b.kind === "row" ? "pointer" : "default";
    if (!lines) { tip.style.display = "none"; return; }
    clear(tip);
    for (const [k, v] of lines) {
      if (v === "title") tip.appendChild(h("div", { class: "cnb-tip-title", text: k }));
      else tip.appendChild(h("div", {}, h("span", { class: "cnb-muted", text: k + " " }), h("span", { text: v })));
    }
    tip.style.display = "block";
    const wrapW = this.scroller.clientWidth;
    const left = Math.min(p.x + 14, Math.max(wrapW - tip.offsetWidth - 4, 0));
    tip.style.left = left + "px";
    tip.style.top = (p.y + 16) + "px";
  }

  describe(i) {
    const d = this.data;
    const lines = [[d.nameOf(i), "title"], ["category", d.catOf(i) + " · " + d.lanes[d.laneOf(i)].name],
      ["start", fmtNs(d.start[i] - this.home.t0)], ["duration", fmtNs(d.dur[i])], ["self", fmtNs(d.self[i])]];
    const sh = d.shapesOf(i);
    if (sh) lines.push(["shapes", sh]);
    const mod = d.moduleOf(i);
    if (mod) lines.push(["module", mod]);
    const launched = d.launched.get(i).length;
    if (launched) lines.push(["launches", launched + " device task(s)"]);
    return lines;
  }

  renderDetails() {
    const el = clear(this.details);
    const i = this.store.selected;
    const d = this.data;
    if (i < 0 || i >= d.n) {
      el.appendChild(h("div", { class: "cnb-muted", text: "Click an event for its details." }));
      return;
    }
    const link = (j, text) => h("button", { class: "cnb-link", type: "button", title: "select",
      onclick: () => this.store.select(j, { zoom: true, source: "details" }) }, text ?? d.nameOf(j));
    el.appendChild(h("div", { class: "cnb-details-title" }, h("b", { text: d.nameOf(i) }),
      h("button", { class: "cnb-btn", type: "button", onclick: () => this.zoomToEvent(i) }, "Zoom to"),
      h("button", { class: "cnb-btn", type: "button",
        onclick: () => this.store.showOp({ name: d.nameOf(i) }, "details") }, "Highlight all like this")));
    const grid = h("div", { class: "cnb-kv" });
    for (const [k, v] of this.describe(i).slice(1)) grid.append(h("span", { class: "cnb-muted", text: k }), h("span", { text: v }));
    el.appendChild(grid);
    const chain = d.parentChain(i).reverse();
    if (chain.length) {
      const crumbs = h("div", { class: "cnb-chain" }, h("span", { class: "cnb-muted", text: "parent chain: " }));
      chain.forEach((j, k) => { if (k) crumbs.appendChild(h("span", { class: "cnb-muted", text: " › " })); crumbs.appendChild(link(j)); });
      el.appendChild(crumbs);
    }
    const tasks = d.launched.get(i);
    if (tasks.length) {
      const list = h("div", { class: "cnb-chain" }, h("span", { class: "cnb-muted", text: `launched device tasks (${tasks.length}): ` }));
      Array.from(tasks.slice(0, 20)).forEach((j, k) => {
        if (k) list.appendChild(h("span", { class: "cnb-muted", text: ", " }));
        list.appendChild(link(j, `${d.nameOf(j)} (${fmtNs(d.dur[j])}, ${d.lanes[d.laneOf(j)].name})`));
      });
      el.appendChild(list);
    }
    const by = d.launchedBy.get(i);
    if (by.length) {
      el.appendChild(h("div", { class: "cnb-chain" }, h("span", { class: "cnb-muted", text: "launched by: " }),
        link(by[0], `${d.nameOf(by[0])} (${d.lanes[d.laneOf(by[0])].name})`)));
    }
  }
}
