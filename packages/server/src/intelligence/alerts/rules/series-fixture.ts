import type { UsageSample } from "@jobsight/schemas";
import type { LiveJob } from "../../../data-plane/queries/live-samples.js";

/** The instant the fixtures' series start: 2026-12-02T10:00:00Z. */
export const T0 = Date.UTC(2026, 11, 2, 10);

/**
 * A sample every `everySeconds` for `minutes` minutes from {@link T0} on one node (and step), its
 * readings given per minute since the start: the test fixture of the live rules.
 *
 * @example
 * ```ts
 * series({ minutes: 30, at: (m) => ({ gpus: [{ index: 0, utilizationPercent: 1, memoryUsedBytes: 0 }] }) });
 * ```
 */
export function series(options: {
  minutes: number;
  everySeconds?: number;
  node?: string;
  step?: string;
  startMinute?: number;
  at: (minute: number) => Partial<UsageSample>;
}): UsageSample[] {
  const every = options.everySeconds ?? 60;
  const out: UsageSample[] = [];
  const start = options.startMinute ?? 0;
  for (let s = start * 60; s <= (start + options.minutes) * 60; s += every) {
    out.push({
      cluster: "hpc1",
      jobId: "4242",
      node: options.node ?? "n1",
      ...(options.step ? { step: options.step } : {}),
      time: new Date(T0 + s * 1000).toISOString(),
      ...options.at(s / 60),
    });
  }
  return out;
}

/** A running job of alice's with these samples, in time order. */
export function liveJob(samples: UsageSample[], extra: Partial<LiveJob> = {}): LiveJob {
  const sorted = [...samples].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  return { cluster: "hpc1", jobId: "4242", user: "alice", samples: sorted, ...extra };
}

/** One GPU's reading. */
export const gpu = (index: number, utilizationPercent: number) => ({
  index,
  utilizationPercent,
  memoryUsedBytes: 2 ** 30,
});
