// Shared state of the views of one widget: selection, highlight, requests to zoom. Views talk through it,
// never to each other, so every view also works alone.

export class Store {
  constructor(data) {
    this.data = data;
    this.selected = -1;
    this.highlight = null; // {rows: Uint32Array (sorted), label, source}
    this.listeners = new Map();
  }

  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, payload) {
    for (const fn of this.listeners.get(type) || []) fn(payload);
  }

  select(i, opts = {}) {
    this.selected = i;
    this.emit("select", { index: i, ...opts });
  }

  setHighlight(rows, label = "", source = "", opts = {}) {
    if (rows && !(rows instanceof Uint32Array)) rows = Uint32Array.from(rows);
    if (rows) rows.sort();
    this.highlight = rows && rows.length ? { rows, label, source } : (rows ? { rows, label, source } : null);
    this.emit("highlight", { ...(this.highlight || {}), ...opts });
  }

  clearHighlight(source = "") {
    this.highlight = null;
    this.emit("highlight", { source });
  }

  // highlight every occurrence of an op (optionally restricted by category / shapes / module) and
  // zoom to the heaviest one: the hotspot table's and the call tree's link to the timeline
  showOp({ name, cat, shapes, module }, source = "") {
    const d = this.data;
    if (!d) return { rows: new Uint32Array(0), heaviest: -1 };
    let rows;
    if (name !== undefined && name !== null) {
      const id = d.nameId(name);
      const catId = cat ? d.cats.indexOf(cat) : -1;
      const shapesCol = d.cols.shapes, moduleCol = d.cols.module;
      const shapesCode = shapes !== undefined && shapesCol ? (shapes === "" ? 0 : d.dicts.shapes.indexOf(shapes) + 1) : -1;
      rows = id < 0 ? new Uint32Array(0) : d.matching((k) => k === id, (i) =>
        (catId < 0 || d.cat[i] === catId) && (shapesCode < 0 || shapesCol[i] === shapesCode));
    } else if (module !== undefined && d.cols.module) {
      const code = d.dicts.module.indexOf(module) + 1;
      const col = d.cols.module;
      const tmp = [];
      for (let i = 0; i < d.n; i++) if (col[i] === code) tmp.push(i);
      rows = Uint32Array.from(tmp);
    } else {
      rows = new Uint32Array(0);
    }
    const label = name !== undefined && name !== null ? name : module;
    this.setHighlight(rows, label, source);
    const heaviest = d.heaviest(rows);
    if (heaviest >= 0) this.select(heaviest, { zoom: true, source });
    this.emit("op", { name, cat, shapes, module, source, count: rows.length });
    return { rows, heaviest };
  }
}
