// DOM helpers. Text from a profile only ever goes through textContent / attribute setters: there is no
// innerHTML anywhere in this bundle (a test greps for it), so names like `<img onerror=...>` stay text.

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = String(v);
    else if (k === "style") el.style.cssText = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// The same rules as cann_nb/formatting.py (ns, nbytes), so a number reads the same in every view:
// three decimals for times, binary sizes with one decimal, "-" for unknown, ASCII signs.
export function fmtNs(ns) {
  if (ns === null || ns === undefined || Number.isNaN(ns)) return "-";
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + " us";
  return Math.round(ns) + " ns";
}

export function fmtSignedNs(ns) {
  return (ns > 0 ? "+" : ns < 0 ? "-" : "") + fmtNs(Math.abs(ns));
}

export function fmtBytes(b) {
  if (b === null || b === undefined || Number.isNaN(b)) return "-";
  const a = Math.abs(b);
  for (const [unit, scale] of [["TiB", 2 ** 40], ["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]]) {
    if (a >= scale) return (b / scale).toFixed(1) + " " + unit;
  }
  return Math.round(b) + " B";
}

export function fmtValue(v, unit) {
  if (unit === "bytes") return fmtBytes(v);
  if (unit === "%") return v.toFixed(1) + " %";
  return Math.abs(v) >= 1000 ? v.toExponential(2) : v.toFixed(2);
}

export function fmtCount(n) {
  return Number(n).toLocaleString("en-US");
}

// "1 lane", "2 lanes", "1,234 events"
export function plural(n, word, many = word + "s") {
  return `${fmtCount(n)} ${Number(n) === 1 ? word : many}`;
}

// a small fixed palette (colour-blind friendly-ish, Tableau 10 + 10 lighter) indexed by a name hash
export const PALETTE = [
  "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
  "#79706e", "#86bcb6", "#8cd17d", "#b6992d", "#499894", "#d37295", "#a0cbe8", "#ffbe7d", "#f1ce63",
  "#d4a6c8", "#bab0ac",
];

export function hashString(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 16777619);
  }
  return x >>> 0;
}

export function debounce(fn, ms) {
  let t = null;
  return (...args) => {
    if (t) clearTimeout(t);
    t = setTimeout(() => { t = null; fn(...args); }, ms);
  };
}

export function cssVar(el, name, fallback) {
  const v = getComputedStyle(el).getPropertyValue(name).trim();
  return v || fallback;
}
