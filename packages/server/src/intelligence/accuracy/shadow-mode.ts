import type { PredictionMode } from "@jobsight/schemas";
import { query, type SqlPool } from "../../data-plane/storage/database.js";

/** `auto`: shadow for the first days of the deployment, then live; or forced either way. */
export type ModeSetting = "auto" | "shadow" | "live";

/** The mode at a moment, and until when shadow lasts (when it is counted). */
export type ModeState = { mode: PredictionMode; shadowUntil?: string };

/**
 * Records the deployment's first start once (the earliest server to get there wins) and returns
 * it: shadow mode is counted from it, so restarts and new replicas do not extend it.
 *
 * @example
 * ```ts
 * const firstStart = await recordFirstStart(pool); // Date of the very first start
 * ```
 */
export async function recordFirstStart(pool: SqlPool): Promise<Date> {
  await query(
    pool,
    `INSERT INTO deployment_state (key, value) VALUES ('first_start', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     ON CONFLICT (key) DO NOTHING`,
  );
  const { rows } = await query<{ value: string }>(
    pool,
    "SELECT value FROM deployment_state WHERE key = 'first_start'",
  );
  return new Date(rows[0].value);
}

/**
 * The mode at `now`: forced by the setting, or (auto) shadow until `shadowDays` after the first
 * start, live after.
 *
 * @example
 * ```ts
 * modeAt(new Date(), firstStart, "auto", 30); // { mode: "shadow", shadowUntil: "…" }
 * ```
 */
export function modeAt(now: Date, firstStart: Date, setting: ModeSetting, shadowDays: number): ModeState {
  if (setting === "live") return { mode: "live" };
  const until = new Date(firstStart.getTime() + shadowDays * 86_400_000);
  if (setting === "shadow") return { mode: "shadow" };
  return now < until ? { mode: "shadow", shadowUntil: until.toISOString() } : { mode: "live" };
}
