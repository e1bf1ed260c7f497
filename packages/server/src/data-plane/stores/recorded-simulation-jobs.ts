import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import type pg from "pg";
import { beforePolicy, type RecommendedValue } from "../../intelligence/policy/before-policy.js";
import type { SimulatedJob } from "../../intelligence/policy/policy-simulate.js";
import { query } from "../storage/database.js";

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

/**
 * The jobs predicted in a window, each with the model's recommendations before the policy that
 * was in force then, ready for `simulatePolicy`: "what would this policy have changed last week".
 * Shadow-mode predictions count too; they hold every resource.
 *
 * @example
 * ```ts
 * const jobs = await recordedSimulationJobs(pool, { from: weekAgo, to: now, cluster: "hpc1" });
 * simulatePolicy(jobs, candidate);
 * ```
 */
export async function recordedSimulationJobs(
  pool: pg.Pool,
  window: SimulationWindow,
): Promise<SimulatedJob[]> {
  const { rows } = await query<{
    spec: JobSpec;
    resources: ResourcePrediction[];
    recommendations: RecommendedValue[];
  }>(pool, SELECT, [window.from, window.to, window.cluster ?? null, window.limit ?? 100_000]);
  return rows.map((row) => ({ spec: row.spec, resources: beforePolicy(row.resources, row.recommendations) }));
}
