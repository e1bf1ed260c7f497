import type { PredictionMode } from "@jobsight/schemas";

/** `auto`: shadow for the first days of the deployment, then live; or forced either way. */
export type ModeSetting = "auto" | "shadow" | "live";

/** The mode at a moment, and until when shadow lasts (when it is counted). */
export type ModeState = { mode: PredictionMode; shadowUntil?: string };

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
