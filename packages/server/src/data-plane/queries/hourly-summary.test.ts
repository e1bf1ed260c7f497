import { describe, expect, it } from "vitest";
import { hourlySummaryParameters } from "./hourly-summary.js";

// sampleRow order: time, cluster, job, node, step, memory, peak, cpu, gpu memory, gpu util, sample
const row = (
  time: string,
  job: string,
  memory: number | undefined,
  peak: number | undefined,
  cpu?: number,
) => [time, "hpc1", job, "n1", "", memory, peak, cpu, undefined, undefined, {}];

describe("hourlySummaryParameters", () => {
  it("groups by cluster, job and UTC hour with counts, null-ignoring maxima and exact first/last times", () => {
    const [buckets, clusters, jobs, counts, memory, cpu, gpu, first, last] = hourlySummaryParameters([
      row("2026-12-01T10:59:59.999900001Z", "1", 5, undefined, 1.5),
      row("2026-12-01T10:00:00.000Z", "1", undefined, 7),
      row("2026-12-01T10:59:59.999900002Z", "1", 3, 4, 0.5),
      row("2026-12-01T11:00:00Z", "1", undefined, undefined),
      row("2026-12-01T12:30:00+01:00", "2", 9, 1),
    ]);
    expect(buckets).toEqual([
      "2026-12-01T10:00:00.000Z",
      "2026-12-01T11:00:00.000Z",
      "2026-12-01T11:00:00.000Z",
    ]);
    expect(clusters).toEqual(["hpc1", "hpc1", "hpc1"]);
    expect(jobs).toEqual(["1", "1", "2"]);
    expect(counts).toEqual([3, 1, 1]);
    expect(memory).toEqual([7, null, 9]);
    expect(cpu).toEqual([1.5, null, null]);
    expect(gpu).toEqual([null, null, null]);
    // Same millisecond, told apart by their nanoseconds.
    expect(first).toEqual(["2026-12-01T10:00:00.000Z", "2026-12-01T11:00:00Z", "2026-12-01T12:30:00+01:00"]);
    expect(last).toEqual([
      "2026-12-01T10:59:59.999900002Z",
      "2026-12-01T11:00:00Z",
      "2026-12-01T12:30:00+01:00",
    ]);
  });
});
