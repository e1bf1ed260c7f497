import { adjustmentReasons, type ParsedSubmission } from "@jobsight/sdk";
import { formatRange, formatValue, resourceLabels } from "./format.js";
import type { Prediction } from "./types.js";

const field = {
  memory: "memoryBytes",
  cores: "cores",
  gpus: "gpus",
  gpuMemory: "gpuMemoryBytes",
  walltime: "walltimeSeconds",
} as const;

function cell(row: HTMLTableRowElement, text: string, className?: string): void {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
}

/**
 * Fills the table body with one row per resource: what the job asks for, the recommendation, its
 * range and confidence and the past jobs it rests on, or why there is no recommendation.
 */
export function renderRecommendation(
  body: HTMLTableSectionElement,
  prediction: Prediction,
  parsed: ParsedSubmission,
): void {
  body.replaceChildren();
  for (const r of prediction.resources) {
    const row = body.insertRow();
    row.dataset.resource = r.resource;
    row.dataset.status = r.status;
    const requested = r.requested ?? parsed.spec.requested[field[r.resource]];
    cell(row, resourceLabels[r.resource]);
    cell(row, formatValue(r.resource, requested), "requested");
    if (r.status === "ok") {
      cell(row, formatValue(r.resource, r.value), "value");
      cell(row, formatRange(r.resource, r.low, r.high), "range");
      cell(row, `${Math.round(r.confidence * 100)}%`, "confidence");
      cell(row, `${r.evidence.jobs} past jobs (${r.evidence.group})`, "evidence");
    } else {
      row.className = "insufficient";
      cell(row, "—", "value");
      cell(row, "—", "range");
      cell(row, "—", "confidence");
      cell(row, `Insufficient evidence: ${r.reason}`, "evidence");
    }
  }
}

/**
 * One line per rule that moved a recommendation (a recent memory kill, the policy's floors, caps
 * and limits per step): a value that is not the model's own says why.
 */
export function renderAdjustments(list: HTMLUListElement, prediction: Prediction): void {
  list.replaceChildren(
    ...adjustmentReasons(prediction.resources).map((a) => {
      const li = document.createElement("li");
      li.dataset.resource = a.resource;
      li.dataset.rule = a.rule;
      const moved = `${formatValue(a.resource, a.before)} → ${formatValue(a.resource, a.after)}`;
      li.textContent = `${resourceLabels[a.resource]} ${moved}: ${a.reason}`;
      return li;
    }),
  );
}
