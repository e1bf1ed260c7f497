import type { UsageSample } from "@jobsight/schemas";

/** The samples of one cgroup: one node and one step (`""` for the whole job), in time order. */
export type CgroupSeries = { node: string; step: string; samples: UsageSample[] };

const MINUTE_MS = 60_000;

/** Milliseconds since the epoch of a sample. */
export const at = (s: UsageSample): number => Date.parse(s.time);

/** The time of the job's latest sample, in milliseconds (NaN without samples). */
export function latestTime(samples: readonly UsageSample[]): number {
  let latest = Number.NaN;
  for (const s of samples) if (!(at(s) <= latest)) latest = at(s);
  return latest;
}

/** Whether the samples reach back at least `minutes` before `end` (the window is covered). */
export function covers(samples: readonly UsageSample[], end: number, minutes: number): boolean {
  return samples.some((s) => at(s) <= end - minutes * MINUTE_MS);
}

/** The samples within the last `minutes` up to `end`, inclusive. */
export function lastMinutes(samples: readonly UsageSample[], end: number, minutes: number): UsageSample[] {
  const start = end - minutes * MINUTE_MS;
  return samples.filter((s) => at(s) >= start && at(s) <= end);
}

/** The job's samples split by cgroup (node and step), each in time order. */
export function cgroupSeries(samples: readonly UsageSample[]): CgroupSeries[] {
  const by = new Map<string, CgroupSeries>();
  for (const s of samples) {
    const step = s.step ?? "";
    const key = `${s.node}\u0000${step}`;
    const series = by.get(key) ?? { node: s.node, step, samples: [] };
    series.samples.push(s);
    by.set(key, series);
  }
  for (const series of by.values()) series.samples.sort((a, b) => at(a) - at(b));
  return [...by.values()];
}

/** Minutes between two instants, rounded for people (`30`, `7.5`). */
export function minutesBetween(startMs: number, endMs: number): number {
  return Math.round(((endMs - startMs) / MINUTE_MS) * 10) / 10;
}
