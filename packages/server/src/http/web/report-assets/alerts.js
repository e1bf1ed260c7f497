// Alerts: the live alerts over running jobs, with their evidence, and the log of actions taken
// (or, in dry-run, that would have been taken) under the platform's policy. Refreshed while open.
import { actionRows, alertRows } from "./alert-rows.js";
import { apiGet } from "./api.js";
import { byId, fill, h, table } from "./dom.js";
import { formatClock, formatTime } from "./format.js";
import { jobLink, loading, showError, startPage } from "./layout.js";

/** How often the open page asks again: the server evaluates its rules about once a minute. */
export const REFRESH_MS = 30_000;
const LIMIT = 200;

let timer;

startPage("alerts.html", () => {
  loading(byId("alerts-live"), "live alerts");
  loading(byId("alert-actions"), "the action log");
  refresh();
});

async function refresh() {
  clearTimeout(timer);
  // A hidden tab asks nothing; it catches up as soon as it is shown again.
  if (document.visibilityState !== "hidden") {
    await Promise.all([loadAlerts(), loadActions()]);
    fill(
      byId("alerts-updated"),
      `Updated ${formatClock(new Date().toISOString())} UTC; refreshed every ${REFRESH_MS / 1000} s.`,
    );
  }
  timer = setTimeout(refresh, REFRESH_MS);
}

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && timer !== undefined) refresh();
});

async function loadAlerts() {
  const slot = byId("alerts-live");
  try {
    const { alerts } = await apiGet("v1/alerts", { state: "firing", limit: LIMIT });
    const rows = alertRows(alerts);
    if (rows.length === 0)
      return fill(
        slot,
        h(
          "p",
          { class: "muted", id: "no-alerts" },
          "No live alerts: no running job you may see breaks a rule.",
        ),
      );
    fill(
      slot,
      h("p", { class: "muted small" }, `${rows.length} live alert${rows.length === 1 ? "" : "s"}.`),
      h(
        "div",
        { class: "table-wrap" },
        table(
          [
            { label: "Severity", value: (r) => h("span", { class: `badge ${r.badge}` }, r.severity) },
            { label: "Rule", value: (r) => r.rule },
            { label: "Job", value: (r) => h("a", { href: jobLink(r.job), class: "job-link" }, r.job.jobId) },
            { label: "Cluster", value: (r) => r.job.cluster },
            { label: "User", value: (r) => r.user },
            { label: "Since", value: (r) => r.since },
            { label: "Held for", class: "num", value: (r) => r.held },
            { label: "Projected", value: (r) => r.projected },
            {
              label: "What holds, and the evidence",
              value: (r) => [h("div", {}, r.message), evidenceList(r.evidence)],
            },
          ],
          rows,
          { rowAttributes: (r) => ({ dataset: { alert: r.id } }) },
        ),
      ),
    );
  } catch (error) {
    showError(slot, error, "live alerts");
  }
}

async function loadActions() {
  const slot = byId("alert-actions");
  try {
    const { actions } = await apiGet("v1/alerts/actions", { limit: LIMIT });
    const rows = actionRows(actions);
    if (rows.length === 0)
      return fill(
        slot,
        h(
          "p",
          { class: "muted", id: "no-actions" },
          "No actions: none was taken or logged in dry run on jobs you may see (actions are off unless the platform turns them on).",
        ),
      );
    fill(
      slot,
      h(
        "div",
        { class: "table-wrap" },
        table(actionColumns(), rows, { rowAttributes: (r) => ({ dataset: { action: r.id } }) }),
      ),
    );
  } catch (error) {
    showError(slot, error, "the action log");
  }
}

function actionColumns() {
  return [
    { label: "When", value: (r) => r.at },
    { label: "Outcome", value: (r) => h("span", { class: `badge ${r.badge}` }, r.outcome) },
    { label: "What", value: (r) => r.what },
    { label: "Job", value: (r) => h("a", { href: jobLink(r.job), class: "job-link" }, r.job.jobId) },
    { label: "Cluster", value: (r) => r.job.cluster },
    { label: "User", value: (r) => r.user },
    { label: "Rule", value: (r) => r.rule },
    { label: "Warned", value: (r) => r.warned },
    {
      label: "Why, and the evidence",
      value: (r) => [
        h("div", {}, r.message),
        r.detail ? h("div", { class: "muted small" }, `${r.executor}: ${r.detail}`) : null,
        evidenceList(r.evidence),
      ],
    },
  ];
}

/** The evidence an alert or action rests on, cited as the API gives it (source, field, node, window). */
function evidenceList(evidence) {
  return h(
    "ul",
    { class: "evidence" },
    evidence.map((e) => {
      const where = [
        e.source,
        e.field ?? e.metric,
        e.node,
        e.gpuIndex !== undefined ? `GPU ${e.gpuIndex}` : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(" · ");
      const window = e.window ? `, ${formatTime(e.window.start)} – ${formatClock(e.window.end)}` : "";
      return h(
        "li",
        {},
        h("span", { class: "kind" }, e.kind),
        h("span", {}, e.text, h("span", { class: "muted" }, ` (${where}${window})`)),
      );
    }),
  );
}
