import type { UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import type { DiagnosisThresholds } from "./thresholds.js";

/** How memory reached its peak. */
export type MemoryPattern =
  /** Rose in most sampling intervals, by a large share of the limit. */
  | {
      readonly kind: "leak";
      readonly from: UsageSample;
      readonly to: UsageSample;
      readonly risingShare: number;
    }
  /** Jumped by a large share of the limit within one or two intervals. */
  | { readonly kind: "spike"; readonly from: UsageSample; readonly to: UsageSample }
  /** `memory.peak` far above every sampled `memory.current`: the peak fell between samples. */
  | { readonly kind: "peak-between-samples"; readonly maxCurrent: UsageSample; readonly peak: UsageSample }
  /** None of the above (plateau, or too few samples to say). */
  | { readonly kind: "unclear" };

/** What one node's samples say about the job's memory there. */
export interface MemoryProfile {
  readonly node: string;
  /** Samples carrying memory, by time. */
  readonly samples: readonly UsageSample[];
  /** The limit: `memory.max` of the cgroup when read, else the request per node. */
  readonly limitBytes: number | undefined;
  readonly limitFrom: "cgroup" | "request" | undefined;
  /** The sample with the largest `memory.current`. */
  readonly maxCurrent: UsageSample | undefined;
  /** The sample with the largest `memory.peak`, if any sample carries it. */
  readonly peakSample: UsageSample | undefined;
  /** The high-water mark: the largest `memory.peak`, else the largest `memory.current`. */
  readonly peakBytes: number | undefined;
  readonly pattern: MemoryPattern;
  /**
   * The sample with a `memory.stat` breakdown (anon/file/shmem) nearest before the highest reading:
   * after a kill the cgroup is nearly empty, so the last sample would say nothing of what held it.
   */
  readonly breakdown: UsageSample | undefined;
  /** The sample listing processes nearest before the highest reading. */
  readonly processes: UsageSample | undefined;
  /** The first rise of `memory.events oom_kill`: the sample before (if any) and the one that shows it. */
  readonly oomKillRise: { readonly before: UsageSample | undefined; readonly after: UsageSample } | undefined;
}

/** The memory profile of each node with memory samples. */
export function memoryProfiles(ctx: RuleContext): MemoryProfile[] {
  const out: MemoryProfile[] = [];
  for (const [node, all] of ctx.series) {
    const samples = all.filter((s) => s.memory !== undefined);
    if (samples.length === 0) continue;
    out.push(profileOf(node, samples, ctx.requestedMemoryPerNode, ctx.thresholds));
  }
  return out;
}

function profileOf(
  node: string,
  samples: readonly UsageSample[],
  requested: number | undefined,
  t: DiagnosisThresholds,
): MemoryProfile {
  const cgroupLimit = [...samples].reverse().find((s) => s.memory?.limitBytes !== undefined)
    ?.memory?.limitBytes;
  const limitBytes = cgroupLimit ?? requested;
  const maxCurrent = argmax(samples, (s) => s.memory!.currentBytes);
  const peakSample = argmax(
    samples.filter((s) => s.memory?.peakBytes !== undefined),
    (s) => s.memory!.peakBytes!,
  );
  const peakBytes = peakSample?.memory?.peakBytes ?? maxCurrent?.memory?.currentBytes;
  return {
    node,
    samples,
    limitBytes,
    limitFrom: cgroupLimit !== undefined ? "cgroup" : requested !== undefined ? "request" : undefined,
    maxCurrent,
    peakSample,
    peakBytes,
    pattern: patternOf(samples, maxCurrent, peakSample, limitBytes, t),
    breakdown: latestUpTo(
      samples,
      maxCurrent,
      (s) => s.memory?.anonBytes !== undefined || s.memory?.fileBytes !== undefined,
    ),
    processes: latestUpTo(samples, maxCurrent, (s) => (s.processes?.length ?? 0) > 0),
    oomKillRise: oomKillRise(samples),
  };
}

function patternOf(
  samples: readonly UsageSample[],
  maxCurrent: UsageSample | undefined,
  peakSample: UsageSample | undefined,
  limit: number | undefined,
  t: DiagnosisThresholds,
): MemoryPattern {
  if (!maxCurrent) return { kind: "unclear" };
  const top = maxCurrent.memory!.currentBytes;
  const peak = peakSample?.memory?.peakBytes;
  if (peakSample && peak !== undefined && peak > t.peakBetweenSamplesRatio * top) {
    return { kind: "peak-between-samples", maxCurrent, peak: peakSample };
  }
  const scale = limit ?? top;
  const upTo = samples.slice(0, samples.indexOf(maxCurrent) + 1);
  const cur = (i: number) => upTo[i].memory!.currentBytes;
  const intervals = upTo.length - 1;
  if (intervals >= 5) {
    let rising = 0;
    for (let i = 1; i < upTo.length; i++)
      if (cur(i) - cur(i - 1) > t.memoryNoiseShareOfLimit * scale) rising++;
    const share = rising / intervals;
    if (share >= t.leakRisingShare && top - cur(0) >= t.leakMinGrowthShareOfLimit * scale) {
      return { kind: "leak", from: upTo[0], to: maxCurrent, risingShare: share };
    }
  }
  const back = Math.max(0, upTo.length - 1 - t.spikeMaxIntervals);
  if (upTo.length >= 2 && top - cur(back) >= t.spikeMinJumpShareOfLimit * scale) {
    return { kind: "spike", from: upTo[back], to: maxCurrent };
  }
  return { kind: "unclear" };
}

function oomKillRise(samples: readonly UsageSample[]): MemoryProfile["oomKillRise"] {
  let prev: UsageSample | undefined;
  for (const s of samples) {
    const k = s.memory?.oomKillEvents;
    if (k === undefined) continue;
    // The job's cgroup starts at zero, so a first reading above zero is already a rise.
    if (k > (prev?.memory?.oomKillEvents ?? 0)) return { before: prev, after: s };
    prev = s;
  }
  return undefined;
}

function latestUpTo(
  samples: readonly UsageSample[],
  last: UsageSample | undefined,
  test: (s: UsageSample) => boolean,
): UsageSample | undefined {
  const upTo = last ? samples.slice(0, samples.indexOf(last) + 1) : samples;
  return [...upTo].reverse().find(test) ?? [...samples].reverse().find(test);
}

function argmax(samples: readonly UsageSample[], f: (s: UsageSample) => number): UsageSample | undefined {
  let best: UsageSample | undefined;
  for (const s of samples) if (best === undefined || f(s) > f(best)) best = s;
  return best;
}
