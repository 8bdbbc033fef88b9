// Bokeh charts inside the widget. The figures come as bokeh json_items; BokehJS itself is asked from the
// kernel once per page (a custom message answered with the inline BokehJS of the kernel's bokeh), so
// nothing is fetched from a CDN. A static host (the HTML report) puts BokehJS on the page beforehand.

import { h, clear } from "./dom.js";

let loading = null;

function haveBokeh(version) {
  const B = globalThis.Bokeh;
  if (!B || !B.embed) return false;
  if (!version) return true;
  return B.version === version || (B.versions && B.versions.has && B.versions.has(version));
}

export function ensureBokeh(model, version, timeoutMs = 20000) {
  if (haveBokeh(version)) return Promise.resolve(globalThis.Bokeh);
  if (loading) return loading;
  loading = new Promise((resolve, reject) => {
    if (!model || !model.send) { reject(new Error("BokehJS is not on this page")); return; }
    const timer = setTimeout(() => { off(); reject(new Error("the kernel did not send BokehJS (is it running?)")); }, timeoutMs);
    const handler = (msg, buffers) => {
      if (!msg || msg.type !== "bokehjs") return;
      clearTimeout(timer);
      off();
      try {
        const buf = buffers && buffers[0];
        const bytes = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        const code = new TextDecoder().decode(bytes);
        const s = document.createElement("script");
        s.textContent = code;
        document.head.appendChild(s);
        if (!globalThis.Bokeh) throw new Error("BokehJS did not initialise");
        resolve(globalThis.Bokeh);
      } catch (e) { reject(e); }
    };
    const off = () => { if (model.off) model.off("msg:custom", handler); };
    model.on("msg:custom", handler);
    model.send({ type: "bokehjs?" });
  }).catch((e) => { loading = null; throw e; });
  return loading;
}

// A lazy view (charts_lazy) has no charts until asked: the kernel adds the requested ones to the
// `charts` trait (ChartsRequest in _protocol.py).
function requestCharts(model, which, timeoutMs = 60000) {
  const have = () => { const c = model.get("charts") || {}; return which.every((k) => c[k]); };
  if (have()) return Promise.resolve(model.get("charts"));
  return new Promise((resolve, reject) => {
    if (!model.send) { reject(new Error("the charts are made by the kernel, which is not connected")); return; }
    const timer = setTimeout(() => { off(); reject(new Error("the kernel did not send the charts (is it busy or stopped?)")); }, timeoutMs);
    const onChange = () => { if (have()) { clearTimeout(timer); off(); resolve(model.get("charts")); } };
    const off = () => { if (model.off) model.off("change:charts", onChange); };
    model.on("change:charts", onChange);
    model.send({ type: "charts?", which });
  });
}

const TITLES = { breakdown: "Time breakdown per device", memory: "Memory over time", utilization: "Utilisation over time",
  roofline: "Roofline", mfu: "MFU per step" };
// widgets/charts.py OP_EVENT: a click on a roofline point (detail: root = the figure's id, name, cat, shapes)
const OP_EVENT = "cnb-op";

export class Charts {
  constructor(model, items, version, which, opts = {}) {
    this.model = model;
    this.onOp = opts.onOp || null;
    this.items = items || {};
    this.version = version;
    this.lazy = !!(model && model.get && model.get("charts_lazy"));
    this.which = (which || Object.keys(this.items)).filter((k) => this.lazy || this.items[k]);
    this.slots = {};
    this.el = h("div", { class: "cnb-charts" });
    this.status = h("div", { class: "cnb-muted cnb-small" });
    this.el.appendChild(this.status);
    for (const k of this.which) {
      this.slots[k] = h("div", { class: "cnb-chart", "data-chart": k });
      this.el.appendChild(this.slots[k]);
    }
    this.done = false;
  }

  async show() {
    if (this.done || !this.which.length) {
      if (!this.which.length) this.status.textContent = "No charts for this view.";
      return;
    }
    this.done = true;
    this.status.textContent = "Loading charts…";
    try {
      if (this.lazy) this.items = await requestCharts(this.model, this.which);
      const Bokeh = await ensureBokeh(this.model, this.version);
      this.status.textContent = "";
      for (const k of this.which) {
        clear(this.slots[k]);
        if (this.items[k]) await Bokeh.embed.embed_item(this.items[k], this.slots[k]);
      }
      this.listenForOps();
      this.el.dataset.rendered = "1";
    } catch (e) {
      this.done = false;
      this.status.textContent = "Charts unavailable: " + (e && e.message ? e.message : String(e));
      for (const k of this.which) clear(this.slots[k]).appendChild(h("div", { class: "cnb-muted", text: TITLES[k] || k }));
    }
  }

  // only this view's figures: the event is global, the figure id tells whose point was clicked
  listenForOps() {
    if (!this.onOp || this.offOps || typeof document === "undefined") return;
    const roots = new Set(this.which.map((k) => this.items[k] && this.items[k].root_id).filter(Boolean));
    const handler = (e) => { if (e.detail && roots.has(e.detail.root)) this.onOp(e.detail); };
    document.addEventListener(OP_EVENT, handler);
    this.offOps = () => document.removeEventListener(OP_EVENT, handler);
  }

  destroy() { if (this.offOps) this.offOps(); this.offOps = null; }
}
