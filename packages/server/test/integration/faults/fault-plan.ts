import type { SeededRandom } from "./seeded-random.js";

/** The faults a round can inject. */
export const FAULT_KINDS = ["server", "postgres", "node", "controller", "disk", "clock"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * One fault of a round: at `atMs` after the round starts it hits (SIGKILL, disk filled, clock
 * stepped) and `forMs` later it is undone (process started again, disk freed); a clock step stays.
 */
export type Episode = {
  kind: FaultKind;
  atMs: number;
  forMs: number;
  /**
   * For `clock`: which collector's clock, and how far it is stepped from where it is (`back to
   * true time` when `stepMs` is null).
   */
  clock?: { target: "node" | "controller"; stepMs: number | null };
};

const HOUR = 3_600_000;

/**
 * The faults of round `index`: each kind with probability 0.8, the kind `index` modulo the number
 * of kinds always (so every kind is hit in every run of six rounds or more), at least three, at
 * random times in the first five seconds, so they overlap in varying orders: the server killed
 * while PostgreSQL is down, a collector killed while its disk is full. Every third round (the
 * second, fifth…) the node's clock is stepped back while the server is down, when the collector
 * is backing off: the step must not stretch its wait.
 *
 * @example
 * ```ts
 * const episodes = planRound(seededRandom(7), 0);
 * ```
 */
export function planRound(rng: SeededRandom, index: number): Episode[] {
  const forced = FAULT_KINDS[index % FAULT_KINDS.length];
  const stepBackInOutage = index % 3 === 1;
  let kinds = FAULT_KINDS.filter(
    (k) => k === forced || (stepBackInOutage && (k === "server" || k === "clock")) || rng.chance(0.8),
  );
  while (kinds.length < 3) {
    const extra = FAULT_KINDS[rng.between(0, FAULT_KINDS.length - 1)];
    if (!kinds.includes(extra)) kinds = [...kinds, extra];
  }
  const episodes = kinds.map((kind): Episode => {
    const atMs = rng.between(0, 5_000);
    switch (kind) {
      case "server":
      case "postgres":
        return { kind, atMs, forMs: rng.between(stepBackInOutage ? 2_000 : 300, 3_000) };
      case "node":
      case "controller":
        return { kind, atMs, forMs: rng.between(100, 2_500) };
      case "disk":
        // Long enough for at least one collection round (1 s) to meet the full disk.
        return { kind, atMs, forMs: rng.between(2_200, 4_500) };
      default: {
        // "clock"
        const target = rng.chance(0.6) ? "node" : "controller";
        // Back to the true time now and then; else a step of 20 s to 30 h either way.
        const stepMs = rng.chance(0.2) ? null : (rng.chance(0.5) ? -1 : 1) * rng.between(20_000, 30 * HOUR);
        return { kind, atMs, forMs: 0, clock: { target, stepMs } };
      }
    }
  });
  if (stepBackInOutage) {
    const server = episodes.find((e) => e.kind === "server")!;
    const clock = episodes.find((e) => e.kind === "clock")!;
    // Late in the outage, once a send or two failed.
    clock.atMs = server.atMs + server.forMs - rng.between(300, 800);
    clock.clock = { target: "node", stepMs: -rng.between(10 * 60_000, 30 * HOUR) };
    // A node collector started after the step would begin with no back-off to stretch: its kill
    // comes first, and it is back before the outage.
    const node = episodes.find((e) => e.kind === "node");
    if (node) Object.assign(node, { atMs: 0, forMs: Math.max(100, Math.min(node.forMs, server.atMs)) });
  }
  return episodes;
}

/** `1d 02:03:04` style, signed. */
export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "-" : "+";
  let s = Math.round(Math.abs(ms) / 1000);
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const hms = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
  return `${sign}${d > 0 ? `${d}d ` : ""}${hms}`;
}

/** One line per episode for the round's summary. */
export function describeEpisode(e: Episode): string {
  const at = `@${(e.atMs / 1000).toFixed(1)}s`;
  switch (e.kind) {
    case "disk":
      return `disk full ${at} for ${(e.forMs / 1000).toFixed(1)}s`;
    case "clock": {
      const { target, stepMs } = e.clock!;
      return `clock(${target}) ${stepMs === null ? "back to true time" : `stepped ${formatOffset(stepMs)}`} ${at}`;
    }
    default:
      return `kill -9 ${e.kind} ${at}, down ${(e.forMs / 1000).toFixed(1)}s`;
  }
}
