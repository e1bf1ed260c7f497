import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";
import type { ScoredOutcome } from "./prediction-store.js";

/** Which recorded predictions to simulate a policy on. */
export type SimulationWindow = {
  from: Date;
  to: Date;
  /** Only this cluster's; all clusters when absent. */
  cluster?: string;
  /** At most this many (the newest). @default 100000 */
  limit?: number;
};

// One fixed statement; a NULL cluster means every cluster.
const SELECT = `
SELECT spec::json AS spec, resources::json AS resources, recommendations::json AS recommendations
FROM predictions
WHERE created_at >= $1 AND created_at < $2 AND ($3::text IS NULL OR cluster = $3)
ORDER BY created_at DESC
LIMIT $4`;

/** A recorded prediction as a policy simulation reads it: what was served and the model's own values. */
export type RecordedPrediction = {
  spec: JobSpec;
  resources: ResourcePrediction[];
  recommendations: ScoredOutcome[];
};

/**
 * The predictions recorded in a window (newest first), for "what would this policy have changed
 * last week". Shadow-mode predictions count too; they hold every resource.
 *
 * @example
 * ```ts
 * const recorded = await recordedPredictions(pool, { from: weekAgo, to: now, cluster: "hpc1" });
 * ```
 */
export async function recordedPredictions(
  pool: pg.Pool,
  window: SimulationWindow,
): Promise<RecordedPrediction[]> {
  const { rows } = await query<RecordedPrediction>(pool, SELECT, [
    window.from,
    window.to,
    window.cluster ?? null,
    window.limit ?? 100_000,
  ]);
  return rows;
}
