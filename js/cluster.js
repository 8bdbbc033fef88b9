// The cluster view: a rank x step heatmap (step time or comm wait) and per-rank stacked bars (compute,
// communication, memcpy, idle: analyze's breakdown of each rank's busiest device, summing to its wall
// time) with the comm wait beside them; stragglers are outlined in red. Every number comes from Python
// (analyze/cluster); this only draws. Clicking a rank sets `selected_rank`.

import { h, fmtNs } from "./dom.js";
import { decodeColumn } from "./data.js";

const PARTS = [["compute_ns", "compute", "#4e79a7"], ["communication_ns", "communication", "#f28e2b"],
  ["memcpy_ns", "memcpy", "#76b7b2"], ["idle_ns", "idle", "#d9d9d9"]];
const WAIT = "#e15759";
const STRAGGLER = "#cf222e";

// a light-to-dark blue ramp, t in [0, 1]
function ramp(t) {
  const c0 = [239, 243, 255], c1 = [8, 48, 107];
  const k = Math.max(0, Math.min(1, t));
  return `rgb(${c0.map((v, i) => Math.round(v + (c1[i] - v) * k)).join(",")})`;
}

function canvas(width, height) {
  const ratio = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
  const c = h("canvas", { width: Math.round(width * ratio), height: Math.round(height * ratio),
    style: `width:${width}px;height:${height}px;display:block;cursor:pointer` });
  const ctx = c.getContext("2d");
  if (ctx) ctx.scale(ratio, ratio);
  return [c, ctx];
}

export async function clusterView(payload, { onRank } = {}) {
  const ranks = payload.ranks || [];
  const slow = new Set(payload.stragglers || []);
  const [cellRank, cellStep, cellDur, cellWait] = await Promise.all(
    ["rank_index", "step", "dur_ns", "comm_wait_ns"].map((k) => decodeColumn(payload.steps[k])));
  const nSteps = payload.n_steps || 0;
  const root = h("div", { class: "cnb-cluster" });
  root.appendChild(h("div", { class: "cnb-cluster-head" },
    h("b", { text: `cluster ${payload.name || ""}` }),
    ` · ${ranks.length} ranks · ${nSteps} steps · `,
    slow.size ? h("span", { style: `color:${STRAGGLER}`, text: `straggler${slow.size > 1 ? "s" : ""}: rank ${[...slow].join(", ")}` })
      : "no stragglers"));
  const label = 56, width = 720;
  const rowH = Math.max(2, Math.min(18, Math.floor(360 / Math.max(ranks.length, 1))));
  const tip = h("div", { class: "cnb-muted cnb-cluster-tip", text: "hover a cell or a bar; click a rank to select it" });

  // -- heatmap ------------------------------------------------------------------------------------
  const metric = { key: "dur_ns" };
  const pick = h("select", { class: "cnb-cluster-metric" },
    h("option", { value: "dur_ns", text: "step time" }), h("option", { value: "comm_wait_ns", text: "comm wait" }));
  const [heat, hctx] = canvas(width, rowH * ranks.length);
  const cellW = nSteps ? (width - label) / nSteps : 0;
  function drawHeat() {
    if (!hctx) return;
    const vals = metric.key === "dur_ns" ? cellDur : cellWait;
    let lo = Infinity, hi = -Infinity;
    for (const v of vals) { if (v < lo) lo = v; if (v > hi) hi = v; }
    hctx.clearRect(0, 0, width, rowH * ranks.length);
    for (let i = 0; i < vals.length; i++) {
      hctx.fillStyle = ramp(hi > lo ? (vals[i] - lo) / (hi - lo) : 0.5);
      hctx.fillRect(label + cellStep[i] * cellW, cellRank[i] * rowH, Math.max(cellW, 1), rowH);
    }
    rankLabels(hctx);
    heat.dataset.range = `${fmtNs(lo)} - ${fmtNs(hi)}`;
    legend.textContent = `${metric.key === "dur_ns" ? "step time" : "comm wait"}: ${fmtNs(lo)} (light) to ${fmtNs(hi)} (dark)`;
  }
  function rankLabels(ctx) {
    ctx.font = `${Math.min(rowH, 11)}px system-ui,sans-serif`;
    ctx.textBaseline = "middle";
    ranks.forEach((r, i) => {
      const bad = slow.has(r.rank);
      ctx.fillStyle = bad ? STRAGGLER : "#57606a";
      if (rowH >= 8 || bad) ctx.fillText(String(r.rank), 2, i * rowH + rowH / 2);
      if (bad) { ctx.strokeStyle = STRAGGLER; ctx.lineWidth = 1.5; ctx.strokeRect(label - 1, i * rowH + 0.75, width - label, rowH - 1.5); }
    });
  }
  const legend = h("div", { class: "cnb-muted" });
  const cellAt = (ev, el) => {
    const b = el.getBoundingClientRect();
    return [Math.floor((ev.clientY - b.top) / rowH), ev.clientX - b.left];
  };
  heat.addEventListener("mousemove", (ev) => {
    const [i, x] = cellAt(ev, heat);
    const step = cellW ? Math.floor((x - label) / cellW) : -1;
    if (i < 0 || i >= ranks.length || step < 0) return;
    for (let k = 0; k < cellRank.length; k++) {
      if (cellRank[k] === i && cellStep[k] === step) {
        tip.textContent = `rank ${ranks[i].rank}, step ${step}: step time ${fmtNs(cellDur[k])}, comm wait ${fmtNs(cellWait[k])}`;
        return;
      }
    }
  });
  pick.addEventListener("change", () => { metric.key = pick.value; drawHeat(); });

  // -- stacked per-rank bars -----------------------------------------------------------------------
  const [bars, bctx] = canvas(width, rowH * ranks.length);
  const maxWall = Math.max(1, ...ranks.map((r) => r.wall_ns));
  const span = (width - label - 8) / 2;   // breakdown on the left half, comm wait on the right
  function drawBars() {
    if (!bctx) return;
    ranks.forEach((r, i) => {
      let x = label;
      for (const [key, , color] of PARTS) {
        const w = (r[key] / maxWall) * span;
        bctx.fillStyle = color;
        bctx.fillRect(x, i * rowH + 1, w, Math.max(rowH - 2, 1));
        x += w;
      }
      bctx.fillStyle = WAIT;
      bctx.fillRect(label + span + 8, i * rowH + 1, (r.comm_wait_ns / maxWall) * span, Math.max(rowH - 2, 1));
    });
    rankLabels(bctx);
  }
  bars.addEventListener("mousemove", (ev) => {
    const [i] = cellAt(ev, bars);
    const r = ranks[i];
    if (!r) return;
    tip.textContent = `rank ${r.rank} (${r.device || "-"}): wall ${fmtNs(r.wall_ns)}, ` +
      PARTS.map(([k, name]) => `${name} ${fmtNs(r[k])}`).join(", ") + `, comm wait ${fmtNs(r.comm_wait_ns)}, ` +
      `step p50 ${fmtNs(r.step_p50_ns)}${slow.has(r.rank) ? " - straggler" : ""}`;
  });
  for (const el of [heat, bars]) {
    el.addEventListener("click", (ev) => {
      const [i] = cellAt(ev, el);
      if (ranks[i] && onRank) onRank(ranks[i].rank);
    });
  }
  const key = h("div", { class: "cnb-muted cnb-cluster-key" },
    ...PARTS.map(([, name, color]) => h("span", { style: `margin-right:10px` },
      h("span", { style: `display:inline-block;width:10px;height:10px;background:${color};margin-right:3px` }), name)),
    h("span", {}, h("span", { style: `display:inline-block;width:10px;height:10px;background:${WAIT};margin-right:3px` }),
      "comm wait (right)"));
  root.append(
    h("div", { class: "cnb-cluster-title" }, "rank x step ", pick), legend, heat,
    h("div", { class: "cnb-cluster-title", text: "per rank: busiest device's breakdown (sums to wall) | comm wait" }),
    key, bars, tip);
  drawHeat();
  drawBars();
  return root;
}
