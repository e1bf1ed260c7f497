import type { UsageSample } from "@jobsight/schemas";
import { ms } from "./explain/format.js";

/** CPU use between two consecutive samples, from the cumulative `cpu.stat usage_usec`. */
export interface CpuRate {
  readonly from: UsageSample;
  readonly to: UsageSample;
  /** Cores in use on average between the two samples. */
  readonly cores: number;
}

/** CPU rates between consecutive samples that both carry `cpu.usageSeconds`. */
export function cpuRates(samples: readonly UsageSample[]): CpuRate[] {
  const out: CpuRate[] = [];
  let prev: UsageSample | undefined;
  for (const s of samples) {
    if (s.cpu === undefined) continue;
    if (prev?.cpu) {
      const dt = (ms(s.time) - ms(prev.time)) / 1000;
      const du = s.cpu.usageSeconds - prev.cpu.usageSeconds;
      // A counter that went backwards means the cgroup was recreated: no rate across it.
      if (dt > 0 && du >= 0) out.push({ from: prev, to: s, cores: du / dt });
    }
    prev = s;
  }
  return out;
}

/** The median of the intervals (s) between consecutive samples, or undefined with fewer than two. */
export function medianInterval(samples: readonly UsageSample[]): number | undefined {
  const gaps: number[] = [];
  for (let i = 1; i < samples.length; i++) gaps.push((ms(samples[i].time) - ms(samples[i - 1].time)) / 1000);
  return median(gaps);
}

/** The median of some numbers, or undefined when there are none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** An order statistic that is one of the values (no interpolation), so evidence can cite it. */
export function quantileOf(values: readonly number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))];
}

/** Runs of consecutive indices where `flags` is true, as inclusive [first, last] pairs. */
export function runsOf(flags: readonly boolean[]): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= flags.length; i++) {
    if (i < flags.length && flags[i]) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push([start, i - 1]);
      start = -1;
    }
  }
  return out;
}

/** Mean GPU utilisation of a sample over its GPUs, or undefined when it has no GPU metrics. */
export function meanGpuUtilisation(sample: UsageSample): number | undefined {
  const g = sample.gpus;
  if (!g || g.length === 0) return undefined;
  return g.reduce((a, x) => a + x.utilizationPercent, 0) / g.length;
}
