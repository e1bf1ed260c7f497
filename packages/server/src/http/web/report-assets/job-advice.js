// "Advice across model versions" on the job page: one row per change of one resource's advice,
// with the versions that gave it and why it changed, from GET /v1/jobs/{id}/advice-history.
import { fill, h, table } from "./dom.js";
import { formatPercent, formatResource, formatTime, RESOURCE_LABELS } from "./format.js";

/**
 * The table's rows as text: per resource its changes, oldest first; the resource is named on its
 * first row only.
 */
export function adviceRows(history) {
  return history.resources.flatMap((r) =>
    r.history.map((entry, i) => ({
      resource: i === 0 ? (RESOURCE_LABELS[r.resource] ?? r.resource) : "",
      versions: entry.modelVersions.join(", "),
      asked:
        entry.asked === 1
          ? formatTime(entry.firstAsked)
          : `${formatTime(entry.firstAsked)} – ${formatTime(entry.lastAsked)} (${entry.asked}×)`,
      advice: adviceText(r.resource, entry),
      confidence: entry.confidence === undefined ? "–" : formatPercent(entry.confidence, 0),
      why: entry.why,
      causes: entry.causes,
      shadow: entry.shadow === true,
    })),
  );
}

function adviceText(resource, entry) {
  if (entry.status !== "ok" || entry.value === undefined) return "no recommendation";
  const value = formatResource(resource, entry.value);
  if (entry.low === undefined || entry.high === undefined || entry.low === entry.high) return value;
  return `${value} (${formatResource(resource, entry.low)} – ${formatResource(resource, entry.high)})`;
}

/** Draws the history into `slot`: a short summary, then the table. */
export function drawAdviceHistory(slot, history) {
  const period = `between ${formatTime(history.from)} and ${formatTime(history.to)}`;
  if (history.resources.length === 0) {
    return fill(
      slot,
      h("p", { class: "muted" }, `No advice was recorded for this job's submission ${period}.`),
    );
  }
  const versions = history.models.length;
  const columns = [
    { label: "Resource", value: (row) => row.resource },
    { label: "Model version", value: (row) => h("span", { class: "mono" }, row.versions) },
    { label: "Asked", value: (row) => row.asked },
    {
      label: "Advice",
      class: "num",
      value: (row) => [row.advice, row.shadow ? h("span", { class: "badge info" }, "shadow") : null],
    },
    { label: "Confidence", class: "num", value: (row) => row.confidence },
    { label: "Why", value: (row) => h("span", { dataset: { causes: row.causes.join(" ") } }, row.why) },
  ];
  return fill(
    slot,
    h(
      "p",
      { class: "muted small" },
      `${history.asked} ${history.asked === 1 ? "prediction" : "predictions"} from ${versions} model ${versions === 1 ? "version" : "versions"} ${period}.`,
    ),
    history.truncated
      ? h("p", { class: "notice warning" }, "Only the newest predictions of the period are shown.")
      : null,
    h("div", { class: "table-wrap" }, table(columns, adviceRows(history))),
  );
}
