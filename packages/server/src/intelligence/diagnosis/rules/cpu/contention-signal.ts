import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../../context.js";
import { coverage, enough } from "../../coverage.js";
import { ms } from "../../explain/format.js";
import { medianInterval } from "../../series.js";

/** What one way of seeing CPU contention found on a node. */
export interface ContentionSignal {
  readonly text: string;
  /** It shows threads waiting for a core (counted or by pressure), not only CPU time beyond the cores. */
  readonly queued: boolean;
  readonly evidence: readonly EvidenceRef[];
  readonly confidence: number;
}

/** The samples where a count stood at or above its bar, and for how much of the run. */
export interface SustainedCount {
  /** Samples carrying the count. */
  readonly counted: readonly UsageSample[];
  /** Those at or above the bar. */
  readonly over: readonly UsageSample[];
  /** Share of the run the over-full readings stand for (each the interval it ends, gaps left out). */
  readonly share: number;
}

/**
 * Whether a per-sample count (runnable threads, the node's runnable tasks) stood at or above `bar`
 * in at least `cpuOversubscribedShare` of the samples carrying it: `"absent"` when too few samples
 * carry it to judge, undefined when it did not.
 *
 * @example
 * ```ts
 * const s = sustainedCount(ctx, samples, (x) => x.cpu?.runnableThreads, 12);
 * if (s && s !== "absent") console.log(s.over.length, s.share);
 * ```
 */
export function sustainedCount(
  ctx: RuleContext,
  samples: readonly UsageSample[],
  read: (s: UsageSample) => number | undefined,
  bar: number,
): SustainedCount | "absent" | undefined {
  const t = ctx.thresholds;
  const counted = samples.filter((s) => read(s) !== undefined);
  const cover = coverage(ctx, counted, "readings", samples);
  if (!enough(ctx, cover)) return "absent";
  const isOver = (s: UsageSample) => read(s)! >= bar;
  const over = counted.filter(isOver);
  if (over.length / counted.length < t.cpuOversubscribedShare) return undefined;
  // The time each over-full reading stands for: the interval it ends, where that is no gap.
  const gap = t.gapIntervalMultiple * (medianInterval(samples) ?? Number.POSITIVE_INFINITY);
  let seconds = 0;
  for (let i = 1; i < counted.length; i++) {
    const dt = (ms(counted[i].time) - ms(counted[i - 1].time)) / 1000;
    if (dt <= gap && isOver(counted[i])) seconds += dt;
  }
  const run = cover.runSeconds;
  const share = run !== undefined && run > 0 ? Math.min(1, seconds / run) : over.length / counted.length;
  return { counted, over, share };
}
