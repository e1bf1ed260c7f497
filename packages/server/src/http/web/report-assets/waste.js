// Waste: requested against used resources of ended jobs, by user, account and partition.
import { apiGet } from "./api.js";
import { BYTE_INCRS, barChart, COLORS } from "./charts.js";
import { byId, fill, h, table } from "./dom.js";
import { formatBytes, formatNumber, formatPercent } from "./format.js";
import { jobLink, loading, showError, startPage } from "./layout.js";
import { moneyColumns, savingsSection, unusedMoney } from "./waste-money.js";

const HOUR = 3600;
const GROUPINGS = ["user", "account", "partition"];
const CHART_GROUPS = 20;

/** Each resource's two sums in a report row, and how to show them (per hour of run time). */
const RESOURCES = {
  memory: {
    priced: "memory",
    requested: (r) => r.memoryRequestedByteSeconds,
    used: (r) => r.memoryUsedByteSeconds,
    format: (v) => `${formatBytes(v / HOUR)}·h`,
    // Byte-hours on the axis ticks: binary steps of the hourly figure.
    incrs: BYTE_INCRS.map((v) => v * HOUR),
  },
  cores: {
    priced: "cores",
    requested: (r) => r.coreSecondsRequested,
    used: (r) => r.coreSecondsUsed,
    format: (v) => `${formatNumber(v / HOUR)} core·h`,
    sampled: {
      idle: (r) => r.idleCoreSeconds,
      observed: (r) => r.observedCoreSeconds,
      unobserved: (r) => r.unobservedCoreSeconds,
      without: (r) => r.jobsWithoutCpuSamples,
      what: "CPU samples",
    },
  },
  gpus: {
    priced: "gpus",
    requested: (r) => r.gpuSecondsRequested,
    used: (r) => r.gpuSecondsUsed,
    format: (v) => `${formatNumber(v / HOUR)} GPU·h`,
    sampled: {
      idle: (r) => r.idleGpuSeconds,
      observed: (r) => r.observedGpuSeconds,
      unobserved: (r) => r.unobservedGpuSeconds,
      without: (r) => r.jobsWithoutGpuSamples,
      what: "GPU readings",
    },
  },
  walltime: {
    requested: (r) => r.walltimeRequestedSeconds,
    used: (r) => r.walltimeUsedSeconds,
    format: (v) => `${formatNumber(v / HOUR)} h`,
  },
};

const reports = {};

startPage("waste.html", async () => {
  const select = byId("resource");
  select.onchange = drawAll;
  loading(byId("savings"), "the savings");
  await Promise.all(
    GROUPINGS.map(async (by) => {
      const slot = byId(`waste-${by}`);
      loading(slot, `waste by ${by}`);
      try {
        // The savings do not depend on the grouping: asked for once, with the users.
        reports[by] = await apiGet("v1/reports/waste", { by, savings: by === "user" ? true : undefined });
        draw(by);
        if (by === "user")
          fill(byId("savings"), savingsSection(reports.user.savings, reports.user.rates?.currency));
      } catch (error) {
        showError(slot, error, `the waste report by ${by}`);
        if (by === "user") showError(byId("savings"), error, "the savings");
      }
    }),
  );
});

function drawAll() {
  for (const by of GROUPINGS) if (reports[by]) draw(by);
}

function draw(by) {
  const slot = byId(`waste-${by}`);
  const resource = RESOURCES[byId("resource").value];
  const rows = reports[by].rows
    .map((row) => ({ row, requested: resource.requested(row), used: resource.used(row) }))
    .filter((r) => r.requested > 0 || r.used > 0)
    .sort((a, b) => b.requested - b.used - (a.requested - a.used));
  if (rows.length === 0)
    return fill(slot, h("p", { class: "muted" }, "No ended jobs with this resource measured."));
  const total = rows.reduce((t, r) => ({ requested: t.requested + r.requested, used: t.used + r.used }), {
    requested: 0,
    used: 0,
  });
  const shown = rows.slice(0, CHART_GROUPS);
  const box = h("div", { class: "chart", dataset: { chart: `waste-${by}` } });
  const columns = [
    { label: by.charAt(0).toUpperCase() + by.slice(1), value: (r) => r.row.key || "(none)" },
    { label: "Jobs", class: "num", value: (r) => String(r.row.jobs) },
    { label: "Requested", class: "num", value: (r) => resource.format(r.requested) },
    { label: "Used", class: "num", value: (r) => resource.format(r.used) },
    { label: "Unused", class: "num", value: (r) => resource.format(Math.max(r.requested - r.used, 0)) },
    {
      label: "Used share",
      class: "num",
      value: (r) => (r.requested > 0 ? formatPercent(r.used / r.requested) : "–"),
    },
  ];
  const sampled = resource.sampled;
  if (sampled) columns.push(...sampledColumns(resource));
  const currency = reports[by].rates?.currency;
  if (currency && resource.priced) columns.push(...moneyColumns(resource.priced, !!sampled, currency));
  fill(
    slot,
    h(
      "p",
      { class: "muted small" },
      `${rows.length} ${by}s; in all ${resource.format(total.requested)} requested, ${resource.format(total.used)} used`,
      total.requested > 0 ? ` (${formatPercent(total.used / total.requested)}).` : ".",
      rows.length > CHART_GROUPS ? ` The chart shows the ${CHART_GROUPS} with most unused.` : "",
      currency && resource.priced ? unusedMoney(rows, resource.priced, currency) : "",
    ),
    box,
    h("div", { class: "table-wrap" }, table(columns, rows)),
    sampled ? idlestJobs(rows, resource) : null,
  );
  barChart(box, {
    categories: shown.map((r) => r.row.key),
    format: resource.format,
    incrs: resource.incrs,
    series: [
      {
        label: "requested",
        values: shown.map((r) => r.requested),
        color: "#93c5fd",
        fill: "#dbeafe",
        size: 0.8,
      },
      { label: "used", values: shown.map((r) => r.used), color: COLORS.blue, fill: COLORS.blue, size: 0.4 },
    ],
  });
}

/**
 * Idle time measured from usage samples, beside the scheduler's totals: what the samples saw
 * reserved and unused, and what they did not see (unknown, never counted as idle).
 */
function sampledColumns(resource) {
  const { idle, observed, unobserved, without } = resource.sampled;
  const measured = (r, get) => (get(r.row) === undefined ? "–" : resource.format(get(r.row)));
  return [
    // Nothing observed is unknown, not zero idle.
    {
      label: "Idle (sampled)",
      class: "num idle",
      value: (r) => (observed(r.row) > 0 ? measured(r, idle) : "–"),
    },
    {
      label: "Idle share",
      class: "num",
      value: (r) => (observed(r.row) > 0 ? formatPercent(idle(r.row) / observed(r.row)) : "–"),
    },
    { label: "Not observed", class: "num", value: (r) => measured(r, unobserved) },
    { label: "Jobs unsampled", class: "num", value: (r) => String(without(r.row) ?? 0) },
  ];
}

/** The jobs with the most idle time in the rows shown, each a link to its page. */
function idlestJobs(rows, resource) {
  // A job carries the same idle fields as a row.
  const { what, idle } = resource.sampled;
  const seconds = (job) => idle(job) ?? 0;
  const jobs = rows
    .flatMap((r) => r.row.idleJobs ?? [])
    .filter((job) => seconds(job) > 0)
    .sort((a, b) => seconds(b) - seconds(a))
    .slice(0, 10);
  if (jobs.length === 0)
    return h("p", { class: "muted small" }, `No job has idle time measured from ${what}.`);
  return h(
    "div",
    { class: "idle-jobs" },
    h("h3", {}, `Idlest jobs, from ${what}`),
    table(
      [
        { label: "Job", value: (j) => h("a", { href: jobLink(j), class: "job-link" }, j.jobId) },
        { label: "Cluster", value: (j) => j.cluster },
        { label: "Idle", class: "num", value: (j) => resource.format(seconds(j)) },
      ],
      jobs,
    ),
  );
}
