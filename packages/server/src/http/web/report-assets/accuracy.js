// Accuracy: the readiness verdict, per-resource figures, under-prediction and slack per week,
// recommended against actual, calibration, and per-partition figures.
import { apiGet } from "./api.js";
import { AXIS, COLORS, mountChart, PALETTE, scatterChart, TIME_AXIS } from "./charts.js";
import { byId, fill, h, table } from "./dom.js";
import {
  formatBytes,
  formatDurationShort,
  formatNumber,
  formatPercent,
  RESOURCE_LABELS,
  toEpochSeconds,
} from "./format.js";
import { loading, showError, startPage } from "./layout.js";
import { readinessVerdict } from "./readiness.js";

const RESOURCES = ["memory", "cores", "gpus", "gpuMemory", "walltime"];
const pct = (share) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;

startPage("accuracy.html", async () => {
  const slots = ["verdict", "summary", "over-time", "scatter", "calibration", "partitions"].map(byId);
  for (const slot of slots) loading(slot, "the accuracy report");
  let report;
  try {
    report = await apiGet("v1/accuracy");
  } catch (error) {
    for (const slot of slots) showError(slot, error, "the accuracy report");
    return;
  }
  fill(byId("verdict"), readinessVerdict(report));
  drawSummary(report);
  drawOverTime(report);
  drawScatter(report);
  drawCalibration(report);
  drawPartitions(report);
});

function byResource(a, b) {
  return RESOURCES.indexOf(a.resource) - RESOURCES.indexOf(b.resource);
}

const FIGURES = [
  { label: "Resource", value: (s) => RESOURCE_LABELS[s.resource] ?? s.resource },
  { label: "Predicted", class: "num", value: (s) => String(s.predicted) },
  { label: "Coverage", class: "num", value: (s) => formatPercent(s.coverage) },
  { label: "Under-predicted", class: "num", value: (s) => formatPercent(s.underPredictionRate, 2) },
  {
    label: "Weighted under-pred.",
    class: "num",
    value: (s) => formatPercent(s.weightedUnderPredictionRate, 2),
  },
  { label: "Slack", class: "num", value: (s) => formatPercent(s.slack, 0) },
  { label: "Users' request slack", class: "num", value: (s) => formatPercent(s.requestSlack, 0) },
  { label: "Range coverage", class: "num", value: (s) => formatPercent(s.rangeCoverage) },
];

function drawSummary(report) {
  const overall = report.slices.filter((s) => !s.partition && !s.weekStart).sort(byResource);
  const slot = byId("summary");
  if (overall.length === 0)
    return fill(slot, h("p", { class: "muted" }, "No ended job has a recorded prediction yet."));
  fill(slot, table(FIGURES, overall));
}

function drawPartitions(report) {
  const slices = report.slices.filter((s) => s.partition && !s.weekStart);
  slices.sort((a, b) => a.partition.localeCompare(b.partition) || byResource(a, b));
  const slot = byId("partitions");
  if (slices.length === 0)
    return fill(slot, h("p", { class: "muted" }, "The report has no per-partition figures."));
  fill(
    slot,
    h(
      "div",
      { class: "table-wrap" },
      table([{ label: "Partition", value: (s) => s.partition }, ...FIGURES], slices),
    ),
  );
}

function drawOverTime(report) {
  const slot = byId("over-time");
  const weekly = report.slices.filter((s) => s.weekStart && !s.partition);
  const resources = RESOURCES.filter((r) => weekly.some((s) => s.resource === r));
  if (resources.length === 0) return fill(slot, h("p", { class: "muted" }, "No weekly figures yet."));
  fill(slot);
  for (const resource of resources) {
    const weeks = weekly
      .filter((s) => s.resource === resource)
      .sort((a, b) => a.weekStart.localeCompare(b.weekStart));
    const box = h("div", { class: "chart", dataset: { chart: `over-time-${resource}` } });
    slot.append(h("div", {}, h("h3", {}, RESOURCE_LABELS[resource]), box));
    const hasRequest = weeks.some((w) => w.requestSlack !== undefined);
    mountChart(
      box,
      {
        height: 220,
        scales: {
          x: { time: true },
          rate: { range: (_u, _min, max) => [0, Math.max(max * 1.15, 0.02)] },
          slack: { range: (_u, _min, max) => [0, Math.max(max * 1.1, 0.1)] },
        },
        axes: [
          TIME_AXIS,
          { ...AXIS, scale: "rate", size: 56, label: "under-predicted", values: (_u, s) => s.map(pct) },
          {
            ...AXIS,
            scale: "slack",
            side: 1,
            size: 56,
            label: "slack",
            grid: { show: false },
            values: (_u, s) => s.map(pct),
          },
        ],
        series: [
          {
            label: "week of",
            value: (_u, v) => (v == null ? "–" : new Date(v * 1000).toISOString().slice(0, 10)),
          },
          rateSeries("under-predicted", COLORS.red, []),
          rateSeries("weighted under-pred.", COLORS.orange, [4, 3]),
          slackSeries("slack", COLORS.blue, []),
          ...(hasRequest ? [slackSeries("users' requests slack", COLORS.grey, [6, 4])] : []),
        ],
      },
      [
        weeks.map((w) => toEpochSeconds(w.weekStart)),
        weeks.map((w) => w.underPredictionRate),
        weeks.map((w) => w.weightedUnderPredictionRate),
        weeks.map((w) => w.slack),
        ...(hasRequest ? [weeks.map((w) => w.requestSlack ?? null)] : []),
      ],
    );
  }
}

function rateSeries(label, color, dash) {
  return {
    label,
    scale: "rate",
    stroke: color,
    width: 2,
    dash,
    value: (_u, v) => (v == null ? "–" : formatPercent(v, 2)),
  };
}

function slackSeries(label, color, dash) {
  return {
    label,
    scale: "slack",
    stroke: color,
    width: 2,
    dash,
    value: (_u, v) => (v == null ? "–" : formatPercent(v, 0)),
  };
}

const VALUE_FORMAT = {
  memory: formatBytes,
  gpuMemory: formatBytes,
  walltime: formatDurationShort,
  cores: (v) => formatNumber(v),
  gpus: (v) => formatNumber(v, 0),
};

// Per-job points are an optional part of the report (`points`: { resource, recommended, actual,
// censored? }); without them the section says so rather than inventing a picture from aggregates.
function drawScatter(report) {
  const slot = byId("scatter");
  const points = report.points ?? [];
  const resources = RESOURCES.filter((r) => points.some((p) => p.resource === r));
  if (resources.length === 0) {
    return fill(
      slot,
      h(
        "p",
        { class: "notice" },
        "This server's accuracy report carries no per-job points, so there is no scatter plot to draw.",
      ),
    );
  }
  fill(slot);
  for (const resource of resources) {
    const mine = points.filter((p) => p.resource === resource);
    const box = h("div", { class: "chart", dataset: { chart: `scatter-${resource}` } });
    slot.append(
      h("div", {}, h("h3", {}, `${RESOURCE_LABELS[resource]}: recommended (y) against used (x)`), box),
    );
    const point = (p) => ({ x: p.actual, y: p.recommended });
    scatterChart(box, {
      log: resource !== "gpus",
      // Powers of two land on round sizes (1 GiB, 2 GiB…); times read better in powers of ten.
      logBase: resource === "memory" || resource === "gpuMemory" ? 2 : 10,
      format: VALUE_FORMAT[resource] ?? formatNumber,
      groups: [
        { label: "completed", color: COLORS.blue, points: mine.filter((p) => !p.censored).map(point) },
        {
          label: "killed (lower bound)",
          color: COLORS.red,
          points: mine.filter((p) => p.censored).map(point),
        },
      ],
      diagonalLabel: "recommended = used",
      xLabel: "used",
      yLabel: "recommended",
    });
  }
}

// Calibration buckets are optional too (`calibration`: { resource, confidence, jobs, observed }).
function drawCalibration(report) {
  const slot = byId("calibration");
  const buckets = report.calibration ?? [];
  if (buckets.length === 0) {
    return fill(
      slot,
      h(
        "p",
        { class: "notice" },
        "This server's accuracy report carries no confidence buckets, so there is no calibration plot to draw.",
      ),
    );
  }
  const resources = RESOURCES.filter((r) => buckets.some((b) => b.resource === r));
  const box = h("div", { class: "chart", dataset: { chart: "calibration" } });
  fill(slot, box);
  scatterChart(box, {
    format: (v) => `${Math.round(v * 100)}%`,
    groups: resources.map((resource, i) => ({
      label: RESOURCE_LABELS[resource],
      color: PALETTE[i % PALETTE.length],
      points: buckets.filter((b) => b.resource === resource).map((b) => ({ x: b.confidence, y: b.observed })),
    })),
    diagonalLabel: "calibrated",
    range: [0, 1],
    lines: true,
    xLabel: "promised confidence",
    yLabel: "observed share that fit",
  });
}
