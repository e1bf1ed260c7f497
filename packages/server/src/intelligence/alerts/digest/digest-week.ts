const DAY_MS = 86_400_000;

/** A week of the digest: from Monday 00:00 UTC to the next Monday 00:00 UTC (exclusive). */
export type DigestWeek = { start: Date; end: Date };

/**
 * The last whole week (Monday to Monday, UTC) that ended at or before `now`: the week a digest
 * sent at `now` reports on.
 *
 * @example
 * ```ts
 * lastWholeWeek(new Date("2026-12-09T08:00:00Z")); // { start: 2026-11-30T00:00Z, end: 2026-12-07T00:00Z }
 * ```
 */
export function lastWholeWeek(now: Date): DigestWeek {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // getUTCDay: Sunday 0 … Saturday 6; days since this week's Monday.
  const sinceMonday = (now.getUTCDay() + 6) % 7;
  const end = midnight - sinceMonday * DAY_MS;
  return { start: new Date(end - 7 * DAY_MS), end: new Date(end) };
}
