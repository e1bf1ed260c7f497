// Overview: the readiness verdict, recent jobs (each linking to its page) and the biggest waste.
import { apiGet } from "./api.js";
import { byId, fill, h, table } from "./dom.js";
import { formatBytes, formatDuration, formatPercent, formatTime } from "./format.js";
import { jobLink, loading, showError, startPage } from "./layout.js";
import { readinessVerdict } from "./readiness.js";

const HOUR = 3600;

startPage("index.html", () => {
  loadReadiness();
  loadJobs();
  loadWaste();
  byId("state-filter").onchange = loadJobs;
});

async function loadReadiness() {
  const slot = byId("readiness");
  loading(slot, "the accuracy report");
  try {
    fill(
      slot,
      readinessVerdict(await apiGet("v1/accuracy")),
      h("p", {}, h("a", { href: "accuracy.html" }, "Accuracy details →")),
    );
  } catch (error) {
    showError(slot, error, "the accuracy report");
  }
}

async function loadJobs() {
  const slot = byId("jobs");
  loading(slot, "jobs");
  try {
    const page = await apiGet("v1/jobs", { limit: 50, state: byId("state-filter").value });
    if (page.items.length === 0) return fill(slot, h("p", { class: "muted" }, "No jobs match."));
    const columns = [
      { label: "Job", value: (j) => h("a", { href: jobLink(j), class: "job-link" }, j.jobId) },
      { label: "Cluster", value: (j) => j.cluster },
      { label: "User", value: (j) => j.spec.user },
      { label: "Account", value: (j) => j.spec.account ?? "–" },
      { label: "Partition", value: (j) => j.spec.partition ?? "–" },
      {
        label: "State",
        value: (j) => h("span", { class: `badge ${j.outcome?.state ?? ""}` }, j.outcome?.state ?? j.phase),
      },
      { label: "Ended", value: (j) => (j.endedAt ? formatTime(j.endedAt) : "–") },
      { label: "Run time", class: "num", value: (j) => formatDuration(runTime(j)) },
      { label: "Memory requested", class: "num", value: (j) => formatBytes(j.spec.requested.memoryBytes) },
      { label: "Peak memory", class: "num", value: (j) => formatBytes(j.peaks?.memoryBytes) },
    ];
    fill(slot, h("div", { class: "table-wrap" }, table(columns, page.items)));
  } catch (error) {
    showError(slot, error, "jobs");
  }
}

async function loadWaste() {
  const slot = byId("waste-top");
  loading(slot, "the waste report");
  try {
    const report = await apiGet("v1/reports/waste", { by: "user" });
    const rows = report.rows.slice(0, 5);
    if (rows.length === 0) return fill(slot, h("p", { class: "muted" }, "No ended jobs yet."));
    const columns = [
      { label: "User", value: (r) => r.key || "(none)" },
      { label: "Jobs", class: "num", value: (r) => String(r.jobs) },
      {
        label: "Memory requested",
        class: "num",
        value: (r) => `${formatBytes(r.memoryRequestedByteSeconds / HOUR)}·h`,
      },
      {
        label: "Memory used",
        class: "num",
        value: (r) => `${formatBytes(r.memoryUsedByteSeconds / HOUR)}·h`,
      },
      {
        label: "Used share",
        class: "num",
        value: (r) =>
          r.memoryRequestedByteSeconds > 0
            ? formatPercent(r.memoryUsedByteSeconds / r.memoryRequestedByteSeconds)
            : "–",
      },
    ];
    fill(
      slot,
      table(columns, rows),
      h("p", {}, h("a", { href: "waste.html" }, "Waste by user, account and partition →")),
    );
  } catch (error) {
    showError(slot, error, "the waste report");
  }
}

function runTime(job) {
  if (job.peaks?.runTimeSeconds !== undefined) return job.peaks.runTimeSeconds;
  if (!job.startedAt || !job.endedAt) return undefined;
  return (Date.parse(job.endedAt) - Date.parse(job.startedAt)) / 1000;
}
