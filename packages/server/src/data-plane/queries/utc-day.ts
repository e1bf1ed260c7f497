const DAY_MS = 86_400_000;

/** The UTC day (ms since epoch, at midnight) of an instant. */
export function utcDay(timeMs: number): number {
  return Math.floor(timeMs / DAY_MS) * DAY_MS;
}
