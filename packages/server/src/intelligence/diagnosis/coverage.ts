import type { Unseen, UsageSample } from "@jobsight/schemas";
import type { RuleContext, Window } from "./context.js";
import { formatDuration, formatShare, ms } from "./explain/format.js";
import { medianInterval } from "./series.js";

/** How much of the job's run some samples cover. */
export interface Coverage {
  readonly samples: number;
  /**
   * Seconds covered: first to last sample for a cumulative counter (it counts across a gap), and
   * without the gaps for instant readings such as GPU utilisation (a gap saw nothing).
   */
  readonly seconds: number;
  /** The run the share is taken of (s): the recorded run time, else the job's window. */
  readonly runSeconds: number | undefined;
  /** `seconds / runSeconds`, at most 1; 1 when the run's length is unknown. */
  readonly share: number;
  /** From the first sample to the last. */
  readonly window: Window | undefined;
  /** No gap from the job's start to its end (the `unseen` list's gaps): the whole run was watched. */
  readonly complete: boolean;
}

/**
 * How much of the run `samples` cover. `cadence` (default: the samples) sets the usual interval
 * above which a wait between two readings is a gap.
 *
 * @example
 * ```ts
 * const c = coverage(ctx, samples.filter((s) => s.cpu), "counter");
 * c.share; // 0.97
 * ```
 */
export function coverage(
  ctx: RuleContext,
  samples: readonly UsageSample[],
  how: "counter" | "readings",
  cadence: readonly UsageSample[] = samples,
): Coverage {
  const run = runLength(ctx);
  if (samples.length === 0)
    return { samples: 0, seconds: 0, runSeconds: run, share: 0, window: undefined, complete: false };
  const first = samples[0].time;
  const last = samples[samples.length - 1].time;
  const bar = ctx.thresholds.gapIntervalMultiple * (medianInterval(cadence) ?? Number.POSITIVE_INFINITY);
  let seconds = (ms(last) - ms(first)) / 1000;
  let complete = samples.length > 1;
  if (how === "readings") {
    seconds = 0;
    for (let i = 1; i < samples.length; i++) {
      const dt = (ms(samples[i].time) - ms(samples[i - 1].time)) / 1000;
      if (dt <= bar) seconds += dt;
      else complete = false;
    }
  }
  const { startedAt, endedAt } = ctx.record;
  if (startedAt && (ms(first) - ms(startedAt)) / 1000 > bar) complete = false;
  if (endedAt && (ms(endedAt) - ms(last)) / 1000 > bar) complete = false;
  const share = run !== undefined && run > 0 ? Math.min(1, seconds / run) : 1;
  return {
    samples: samples.length,
    seconds,
    runSeconds: run,
    share,
    window: { start: first, end: last },
    complete,
  };
}

/** True when the coverage is enough to judge use over the run (see the `usageMin…` thresholds). */
export function enough(ctx: RuleContext, c: Coverage): boolean {
  const t = ctx.thresholds;
  return (
    c.samples >= t.usageMinSamples && c.seconds >= t.usageMinSpanSeconds && c.share >= t.usageMinCoverShare
  );
}

/**
 * The `unseen` entry for a use the samples are too few to judge: what was not judged, how long the
 * job ran, what the samples covered and what judging takes.
 *
 * @example
 * ```ts
 * notJudged(ctx, "usage-samples", "CPU use on cn100", "how busy the job kept its cores there", c);
 * // { source: "usage-samples", reason: "CPU use on cn100 was not judged: the job ran 20 s …" }
 * ```
 */
export function notJudged(
  ctx: RuleContext,
  source: string,
  what: string,
  claim: string,
  c: Coverage,
): Unseen {
  const t = ctx.thresholds;
  const ran = c.runSeconds !== undefined ? `the job ran ${formatDuration(c.runSeconds)} and ` : "";
  const seen =
    c.samples === 0
      ? "no sample carries it"
      : `its ${c.samples} sample${c.samples > 1 ? "s" : ""} cover ${formatDuration(c.seconds)}${c.runSeconds ? ` (${formatShare(c.share)} of the run)` : ""}`;
  return {
    source,
    reason:
      `${what} was not judged: ${ran}${seen}; it is judged from at least ${t.usageMinSamples} samples ` +
      `covering ${formatDuration(t.usageMinSpanSeconds)} and ${formatShare(t.usageMinCoverShare)} of the run, so ${claim} is not known.`,
    ...(ctx.window ? { window: ctx.window } : {}),
  };
}

function runLength(ctx: RuleContext): number | undefined {
  if (ctx.runSeconds !== undefined) return ctx.runSeconds;
  const w = ctx.window;
  return w ? (ms(w.end) - ms(w.start)) / 1000 : undefined;
}

/**
 * A node's CPU counters and how much of the run they cover, with the `unseen` entry every CPU rule
 * gives (the same words, so the diagnosis lists it once) when they are not enough to judge.
 */
export function cpuCoverage(
  ctx: RuleContext,
  node: string,
): { samples: UsageSample[]; coverage: Coverage; unseen?: Unseen } {
  const samples = (ctx.series.get(node) ?? []).filter((s) => s.cpu !== undefined);
  const c = coverage(ctx, samples, "counter");
  if (enough(ctx, c)) return { samples, coverage: c };
  return {
    samples,
    coverage: c,
    unseen: notJudged(ctx, "usage-samples", `CPU use on ${node}`, "how busy the job kept its cores there", c),
  };
}
