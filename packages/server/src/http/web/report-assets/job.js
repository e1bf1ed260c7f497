// A job's page: what it asked for and used, its diagnosis linked to the charts, its time series,
// its node events, how its advice changed across model versions and the prompt for a coding agent.
import { apiGet } from "./api.js";
import { BYTE_INCRS, setBands, setMarkers, timeChart } from "./charts.js";
import { byId, fill, h, table } from "./dom.js";
import { formatBytes, formatDuration, formatNumber, formatTime, toEpochSeconds } from "./format.js";
import { drawAdviceHistory } from "./job-advice.js";
import { chartsForEvidence, drawDiagnosis } from "./job-diagnosis.js";
import { jobSeries } from "./job-series.js";
import { loading, showError, startPage } from "./layout.js";

// Raw samples for runs up to this many points per line; longer runs are bucketed by the server.
const MAX_POINTS = 1500;
const CHARTS = [
  { key: "memory", title: "Memory", format: formatBytes, incrs: BYTE_INCRS },
  { key: "cpu", title: "CPU cores in use", format: (v) => formatNumber(v, 1) },
  { key: "gpu", title: "GPU utilisation", format: (v) => `${Math.round(v)}%`, yMax: 100 },
  { key: "gpuMemory", title: "GPU memory", format: formatBytes, incrs: BYTE_INCRS },
];
const plots = new Map();

startPage("", async () => {
  const params = new URLSearchParams(location.search);
  const id = params.get("id");
  const cluster = params.get("cluster") ?? undefined;
  const slots = ["job-head", "diagnosis", "charts", "events", "advice"].map(byId);
  if (!id) {
    for (const slot of slots)
      fill(slot, h("p", { class: "notice" }, "No job chosen: open one from the overview."));
    return;
  }
  document.title = `Jobsight · job ${id}`;
  for (const slot of slots) loading(slot, `job ${id}`);
  const path = `v1/jobs/${encodeURIComponent(id)}`;
  let job;
  try {
    job = await apiGet(path, { cluster });
  } catch (error) {
    for (const slot of slots) showError(slot, error, `job ${id}`);
    return;
  }
  drawHead(job);
  const [usage, events, diagnosis, advice] = await Promise.allSettled([
    apiGet(`${path}/usage`, { cluster: job.cluster, stepSeconds: stepFor(job) }),
    apiGet(`${path}/events`, { cluster: job.cluster }),
    apiGet(`${path}/diagnosis`, { cluster: job.cluster }),
    apiGet(`${path}/advice-history`, { cluster: job.cluster }),
  ]);
  if (usage.status === "fulfilled") drawCharts(usage.value.samples, job);
  else showError(byId("charts"), usage.reason, "the job's time series");
  const eventList = events.status === "fulfilled" ? events.value.events : [];
  if (events.status === "fulfilled") drawEvents(eventList);
  else showError(byId("events"), events.reason, "the job's events");
  for (const plot of plots.values()) {
    setMarkers(
      plot,
      eventList.map((e) => ({ time: toEpochSeconds(e.time), kind: e.kind, label: `${e.kind} on ${e.node}` })),
    );
  }
  if (advice.status === "fulfilled") drawAdviceHistory(byId("advice"), advice.value);
  else showError(byId("advice"), advice.reason, "the job's advice history");
  if (diagnosis.status === "fulfilled") {
    drawDiagnosis(byId("diagnosis"), diagnosis.value, highlight);
    drawPrompt(diagnosis.value.agentPrompt);
  } else {
    showError(byId("diagnosis"), diagnosis.reason, "a diagnosis of this job");
    fill(byId("agent-prompt"), "No diagnosis, so no prompt.");
  }
});

function stepFor(job) {
  if (!job.startedAt) return undefined;
  const end = job.endedAt ? Date.parse(job.endedAt) : Date.now();
  const seconds = (end - Date.parse(job.startedAt)) / 1000;
  // Collectors sample every ~10 s: bucket only when that would give more than MAX_POINTS.
  return seconds / 10 > MAX_POINTS ? Math.ceil(seconds / MAX_POINTS) : undefined;
}

function drawHead(job) {
  const r = job.spec.requested;
  const p = job.peaks ?? {};
  const runTime =
    p.runTimeSeconds ??
    (job.startedAt && job.endedAt ? (Date.parse(job.endedAt) - Date.parse(job.startedAt)) / 1000 : undefined);
  const fact = (label, value) => h("div", {}, h("dt", {}, label), h("dd", {}, value ?? "–"));
  const rows = [
    { resource: "Memory", requested: formatBytes(r.memoryBytes), used: formatBytes(p.memoryBytes) },
    {
      resource: "CPU cores",
      requested: r.cores ?? "–",
      used: p.coresUsed !== undefined ? formatNumber(p.coresUsed, 1) : "–",
    },
    { resource: "GPUs", requested: r.gpus ?? "–", used: p.gpusUsed ?? "–" },
    { resource: "GPU memory", requested: formatBytes(r.gpuMemoryBytes), used: formatBytes(p.gpuMemoryBytes) },
    { resource: "Walltime", requested: formatDuration(r.walltimeSeconds), used: formatDuration(runTime) },
  ];
  fill(
    byId("job-head"),
    h(
      "div",
      { class: "toolbar" },
      h("h1", {}, `Job ${job.jobId}`),
      h("span", { class: `badge ${job.outcome?.state ?? ""}` }, job.outcome?.state ?? job.phase),
      h("span", { class: "muted" }, `${job.cluster} · ${job.spec.scheduler}`),
    ),
    h(
      "dl",
      { class: "facts" },
      fact("User", job.spec.user),
      fact("Account", job.spec.account),
      fact("Partition", job.spec.partition),
      fact("Job name", job.spec.jobName),
      fact("Executable", job.spec.executable),
      fact("Nodes", job.nodes?.join(", ")),
      fact("Submitted", formatTime(job.submittedAt)),
      fact("Started", formatTime(job.startedAt)),
      fact("Ended", formatTime(job.endedAt)),
      fact(
        "Exit",
        job.outcome
          ? [
              job.outcome.exitCode !== undefined ? `code ${job.outcome.exitCode}` : null,
              job.outcome.signal ? `signal ${job.outcome.signal}` : null,
              job.outcome.reason,
            ]
              .filter(Boolean)
              .join(", ") || "–"
          : "–",
      ),
    ),
    h("h3", { class: "small" }, "Requested against used"),
    table(
      [
        { label: "Resource", value: (row) => row.resource },
        { label: "Requested", class: "num", value: (row) => String(row.requested) },
        { label: "Used (peak)", class: "num", value: (row) => String(row.used) },
      ],
      rows,
    ),
  );
}

function drawCharts(samples, job) {
  const slot = byId("charts");
  if (samples.length === 0)
    return fill(slot, h("p", { class: "muted" }, "No usage samples were collected for this job."));
  const data = jobSeries(samples, job);
  fill(slot);
  for (const chart of CHARTS) {
    const series = data[chart.key];
    if (series.length === 0) continue;
    const box = h("div", { class: "chart", id: `chart-${chart.key}`, dataset: { chart: chart.key } });
    slot.append(h("div", {}, h("h3", {}, chart.title), box));
    plots.set(
      chart.key,
      timeChart(box, {
        x: data.x,
        series,
        format: chart.format,
        incrs: chart.incrs,
        yMax: chart.yMax,
        height: 230,
      }),
    );
  }
  if (data.gpu.length === 0) slot.append(h("p", { class: "muted small" }, "No GPU readings for this job."));
}

/** Shades each evidence window on the charts it concerns; `null` clears every chart. */
function highlight(evidence) {
  const bands = new Map([...plots.keys()].map((key) => [key, []]));
  for (const e of evidence ?? []) {
    if (!e.window) continue;
    const band = { start: toEpochSeconds(e.window.start), end: toEpochSeconds(e.window.end), label: e.text };
    for (const key of chartsForEvidence(e)) bands.get(key)?.push(band);
  }
  for (const [key, list] of bands) setBands(plots.get(key), list);
  const first = [...bands].find(([, list]) => list.length > 0);
  if (first) document.getElementById(`chart-${first[0]}`)?.scrollIntoView({ block: "nearest" });
  markEvents(evidence ?? []);
}

function markEvents(evidence) {
  const windows = evidence
    .filter((e) => e.window)
    .map((e) => [Date.parse(e.window.start) - 1000, Date.parse(e.window.end) + 1000]);
  for (const row of document.querySelectorAll("#events tr[data-time]")) {
    const t = Number(row.dataset.time);
    row.classList.toggle(
      "active",
      windows.some(([a, b]) => t >= a && t <= b),
    );
  }
}

function drawEvents(events) {
  const slot = byId("events");
  if (events.length === 0)
    return fill(slot, h("p", { class: "muted" }, "No node events were attributed to this job."));
  const detail = (e) =>
    e.message ??
    (e.xid
      ? `Xid ${e.xid.code} on ${e.xid.pciBusId}`
      : e.oomKill
        ? `killed ${e.oomKill.processName} (${e.oomKill.pid})`
        : "");
  const columns = [
    { label: "Time (UTC)", value: (e) => formatTime(e.time) },
    { label: "Node", value: (e) => e.node },
    {
      label: "Kind",
      value: (e) => h("span", { class: `badge ${e.kind === "source_unavailable" ? "" : "error"}` }, e.kind),
    },
    { label: "Details", value: (e) => h("span", { class: "mono" }, detail(e)) },
  ];
  fill(
    slot,
    h(
      "div",
      { class: "table-wrap" },
      table(columns, events, { rowAttributes: (e) => ({ dataset: { time: String(Date.parse(e.time)) } }) }),
    ),
  );
}

function drawPrompt(prompt) {
  const pre = byId("agent-prompt");
  const status = byId("copy-status");
  fill(pre, prompt);
  byId("copy-prompt").onclick = async () => {
    try {
      await navigator.clipboard.writeText(prompt);
      status.textContent = "Copied to the clipboard.";
    } catch {
      // No clipboard permission (e.g. plain HTTP from another host): select it for a manual copy.
      getSelection()?.selectAllChildren(pre);
      status.textContent = document.execCommand("copy")
        ? "Copied to the clipboard."
        : "Selected: press Ctrl+C to copy.";
    }
  };
}
