import type { ResourcePrediction } from "@jobsight/schemas";
import { adjustmentReasons } from "../../predictions/adjustment-reasons.js";
import { formatResourceValue } from "../format-values.js";

/**
 * One line per rule that moved a recommendation, e.g.
 * `memory 100.0 MiB → 450.0 MiB: a recent run of this job was killed for memory: …`.
 *
 * @example
 * ```ts
 * for (const line of adjustmentNotes(prediction.resources)) out.write(`${line}\n`);
 * ```
 */
export function adjustmentNotes(resources: readonly ResourcePrediction[]): string[] {
  return adjustmentReasons(resources).map(
    (a) =>
      `${a.resource} ${formatResourceValue(a.resource, a.before)} → ${formatResourceValue(a.resource, a.after)}: ${a.reason}`,
  );
}
