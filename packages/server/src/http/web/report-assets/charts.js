// Chart helpers over uPlot (loaded as the global `uPlot` by each page): time series with
// highlighted windows and event markers, requested-against-used bars, scatter and calibration plots.
/* global uPlot */

/** Colours of the report, chosen to stay apart for colour-blind readers. */
export const COLORS = {
  blue: "#2563eb",
  red: "#dc2626",
  green: "#059669",
  orange: "#d97706",
  purple: "#7c3aed",
  grey: "#6b7280",
  teal: "#0891b2",
  pink: "#db2777",
};
export const PALETTE = [COLORS.blue, COLORS.orange, COLORS.green, COLORS.purple, COLORS.teal, COLORS.pink];

/** Axis style shared by every chart. */
export const AXIS = {
  stroke: "#374151",
  grid: { stroke: "#e5e7eb", width: 1 },
  ticks: { stroke: "#d1d5db", width: 1 },
};
const overlays = new WeakMap();

/** Tick steps for byte axes: binary multiples, so a 64 GiB limit sits on a tick. */
export const BYTE_INCRS = [1, 2 ** 10, 2 ** 20, 2 ** 30, 2 ** 40, 2 ** 50].flatMap((unit) =>
  [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((k) => k * unit),
);

/** The time axis in UTC, 24-hour: hours and minutes within a day, dates across days. */
export const TIME_AXIS = {
  ...AXIS,
  values: (u, splits) => {
    const span = u.scales.x.max - u.scales.x.min;
    return splits.map((v, i) => {
      if (v == null) return "";
      const iso = new Date(v * 1000).toISOString();
      const day = iso.slice(5, 10);
      const time = iso.slice(11, 16);
      if (span > 3 * 86_400) return day;
      if (span > 86_400) return `${day} ${time}`;
      return i === 0 ? `${time}\n${day}` : time;
    });
  },
};

/**
 * Creates a uPlot chart that follows its container's width, shows times in UTC and can carry
 * overlays (highlighted windows, event markers) that survive zooming and resizing.
 */
export function mountChart(container, options, data) {
  const redraw = (u) => drawOverlays(u);
  const plot = new uPlot(
    {
      ...options,
      width: widthOf(container),
      height: options.height ?? 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      hooks: { ...options.hooks, setSize: [redraw], setScale: [redraw] },
    },
    data,
    container,
  );
  overlays.set(plot, { bands: [], markers: [] });
  let width = widthOf(container);
  new ResizeObserver(() => {
    const next = widthOf(container);
    if (next !== width) {
      width = next;
      plot.setSize({ width: next, height: plot.height });
    }
  }).observe(container);
  return plot;
}

function widthOf(container) {
  return Math.max(280, Math.floor(container.clientWidth));
}

/** Shades these windows (`{ start, end }` in epoch seconds, `label`) on the chart; none clears. */
export function setBands(plot, windows) {
  overlays.get(plot).bands = windows;
  drawOverlays(plot);
}

/** Draws a vertical marker at each `{ time, label, kind }` (epoch seconds). */
export function setMarkers(plot, markers) {
  overlays.get(plot).markers = markers;
  drawOverlays(plot);
}

function drawOverlays(u) {
  const state = overlays.get(u);
  if (!state) return;
  for (const old of u.over.querySelectorAll(".overlay")) old.remove();
  const width = u.over.clientWidth;
  const clamp = (px) => Math.min(Math.max(px, 0), width);
  for (const band of state.bands) {
    const left = clamp(u.valToPos(band.start, "x"));
    const right = clamp(u.valToPos(band.end, "x"));
    const div = document.createElement("div");
    div.className = "overlay highlight-band";
    div.dataset.start = String(band.start);
    div.dataset.end = String(band.end);
    div.title = band.label ?? "";
    // An instant (or a few seconds on a long run) still gets a band wide enough to see.
    const wide = Math.max(6, right - left);
    const start = Math.min(Math.max((left + right) / 2 - wide / 2, 0), Math.max(width - wide, 0));
    div.style.left = `${right - left >= 6 ? left : start}px`;
    div.style.width = `${wide}px`;
    u.over.append(div);
  }
  for (const marker of state.markers) {
    const x = u.valToPos(marker.time, "x");
    if (x < 0 || x > width) continue;
    const div = document.createElement("div");
    div.className = `overlay event-marker ${marker.kind ?? ""}`;
    div.title = marker.label ?? "";
    div.style.left = `${x}px`;
    u.over.append(div);
  }
}

/**
 * A time chart: `x` in epoch seconds, `series` [{ label, values, color, dash?, width?, fill? }],
 * `format` for the y values; `yMax` fixes the top (utilisation: 100), else it follows the data.
 */
export function timeChart(container, { x, series, format, height, yMin = 0, yMax, incrs }) {
  const options = {
    height,
    scales: {
      x: { time: true },
      y: { range: (_u, _min, max) => [yMin, yMax ?? (max > yMin ? max * 1.08 : yMin + 1)] },
    },
    axes: [TIME_AXIS, { ...AXIS, size: 76, incrs, values: (_u, splits) => splits.map(format) }],
    series: [
      { label: "UTC", value: (_u, v) => (v == null ? "–" : new Date(v * 1000).toISOString().slice(11, 19)) },
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: s.width ?? 2,
        dash: s.dash,
        fill: s.fill,
        spanGaps: true,
        points: { show: false },
        value: (_u, v) => (v == null ? "–" : format(v)),
      })),
    ],
    cursor: { drag: { x: true, y: false } },
  };
  return mountChart(container, options, [x, ...series.map((s) => s.values)]);
}

/**
 * Requested against used per group, as bars: the wide pale bar is what was requested, the narrow
 * dark one inside it what was used. `series`: [{ label, values, color, fill, size }].
 */
export function barChart(container, { categories, series, format, height = 260, incrs }) {
  const x = categories.map((_, i) => i);
  const rotate = categories.length > 6;
  const short = (text) => (text.length > 16 ? `${text.slice(0, 15)}…` : text || "(none)");
  const options = {
    height,
    scales: {
      x: { time: false, range: () => [-0.5, Math.max(categories.length, 1) - 0.5] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        ...AXIS,
        grid: { show: false },
        splits: () => x,
        values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? short(categories[i] ?? "") : "")),
        rotate: rotate ? -35 : 0,
        size: rotate ? 96 : 36,
      },
      { ...AXIS, size: 84, incrs, values: (_u, splits) => splits.map(format) },
    ],
    series: [
      { label: "group", value: (_u, i) => (i == null ? "–" : categories[i] || "(none)") },
      ...series.map((s) => ({
        label: s.label,
        stroke: s.color,
        fill: s.fill,
        width: 1,
        paths: uPlot.paths.bars({ size: [s.size, 90], align: 0 }),
        points: { show: false },
        value: (_u, v) => (v == null ? "–" : format(v)),
      })),
    ],
    cursor: { drag: { x: false, y: false }, points: { show: false } },
  };
  return mountChart(container, options, [x, ...series.map((s) => s.values)]);
}

/**
 * Points of several groups against a shared x, with the y = x diagonal. `groups`:
 * [{ label, color, points: [{ x, y }] }]; `log` uses logarithmic axes (values ≤ 0 are left out),
 * `range` fixes both axes, `lines` joins each group's points.
 */
export function scatterChart(
  container,
  {
    groups,
    format,
    log = false,
    logBase = 10,
    height = 280,
    diagonalLabel = "y = x",
    range,
    xLabel,
    yLabel,
    lines = false,
  },
) {
  const keep = (p) => Number.isFinite(p.x) && Number.isFinite(p.y) && (!log || (p.x > 0 && p.y > 0));
  const all = groups.flatMap((g, gi) => g.points.filter(keep).map((p) => ({ ...p, gi })));
  all.sort((a, b) => a.x - b.x);
  const x = all.map((p) => p.x);
  const values = groups.map((_, gi) => all.map((p) => (p.gi === gi ? p.y : null)));
  const lo = Math.min(...all.map((p) => Math.min(p.x, p.y)));
  const hi = Math.max(...all.map((p) => Math.max(p.x, p.y)));
  // Log axes start and end on powers of the base, so every labelled tick is a round value.
  const power = (v, round) =>
    logBase ** round(Math.log(v) / Math.log(logBase) + (round === Math.floor ? -1e-9 : 1e-9));
  const bounds = range ?? (log ? [power(lo, Math.floor), power(hi, Math.ceil)] : [0, hi * 1.08 || 1]);
  const diagonal = range ? [range[0], ...x, range[1]] : x;
  const distr = log ? 3 : 1;
  const options = {
    height,
    scales: {
      x: { time: false, distr, log: logBase, range: () => bounds },
      y: { distr, log: logBase, range: () => bounds },
    },
    // On log axes uPlot passes null for the ticks it leaves unlabelled.
    axes: [
      {
        ...AXIS,
        label: xLabel,
        values: (_u, splits) => thin(splits).map((v) => (v == null ? "" : format(v))),
      },
      {
        ...AXIS,
        label: yLabel,
        size: 84,
        values: (_u, splits) => splits.map((v) => (v == null ? "" : format(v))),
      },
    ],
    series: [
      { label: xLabel ?? "x", value: (_u, v) => (v == null ? "–" : format(v)) },
      ...groups.map((g) => ({
        label: g.label,
        stroke: g.color,
        width: lines ? 2 : 1,
        spanGaps: true,
        paths: lines ? undefined : () => null,
        points: { show: true, size: 6, width: 1, fill: g.color, stroke: "#ffffff" },
        value: (_u, v) => (v == null ? "–" : format(v)),
      })),
      {
        label: diagonalLabel,
        stroke: COLORS.grey,
        dash: [6, 4],
        width: 1,
        spanGaps: true,
        points: { show: false },
      },
    ],
    cursor: { drag: { x: true, y: true, uni: 30 } },
  };
  // The diagonal runs corner to corner; the groups have no values at its two extra ends.
  const data = range ? [diagonal, ...values.map((v) => [null, ...v, null]), diagonal] : [x, ...values, x];
  return mountChart(container, options, data);
}

// Every other label when a horizontal axis has more than it can show side by side.
function thin(splits) {
  const shown = splits.filter((v) => v != null).length;
  if (shown <= 7) return splits;
  let k = 0;
  return splits.map((v) => (v == null ? null : k++ % 2 === 0 ? v : null));
}
