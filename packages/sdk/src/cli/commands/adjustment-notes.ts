import type { ResourcePrediction } from "@jobsight/schemas";
import { adjustmentReasons } from "../../predictions/adjustment-reasons.js";
import { formatResourceValue } from "../format-values.js";

/**
 * One line per recommendation set by the job's own request, then one per rule that moved a
 * recommendation, e.g. `memory 100.0 MiB → 450.0 MiB: a recent run of this job was killed for memory: …`.
 *
 * @example
 * ```ts
 * for (const line of adjustmentNotes(prediction.resources)) out.write(`${line}\n`);
 * ```
 */
export function adjustmentNotes(resources: readonly ResourcePrediction[]): string[] {
  const fromRequest: string[] = [];
  for (const r of resources) {
    if (r.status !== "ok" || r.basis !== "request" || r.requested === undefined) continue;
    const asked = formatResourceValue(r.resource, r.requested);
    const kept =
      r.value === r.requested ? `kept at your request (${asked})` : `set from your request of ${asked}`;
    fromRequest.push(
      `${r.resource} ${kept}: on this cluster, jobs like this one stayed within their requests, a tighter bound at the same risk than the model's estimate`,
    );
  }
  return fromRequest.concat(
    adjustmentReasons(resources).map(
      (a) =>
        `${a.resource} ${formatResourceValue(a.resource, a.before)} → ${formatResourceValue(a.resource, a.after)}: ${a.reason}`,
    ),
  );
}
