import type { JobRecord, UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";

type Line = { label: string; values: (number | null)[]; dash?: number[] };
type JobSeries = { x: number[]; memory: Line[]; cpu: Line[]; gpu: Line[]; gpuMemory: Line[] };
// The page's own browser module, loaded as it is served (plain JS, so imported by a computed path).
const modulePath = "./report-assets/job-series.js";
const { jobSeries } = (await import(modulePath)) as {
  jobSeries: (samples: UsageSample[], job?: Partial<JobRecord>) => JobSeries;
};

const GIB = 2 ** 30;
const sample = (node: string, second: number, extra: Partial<UsageSample> = {}): UsageSample => ({
  cluster: "hpc1",
  jobId: "1",
  node,
  time: new Date(Date.UTC(2026, 11, 1, 10) + second * 1000).toISOString(),
  ...extra,
});

describe("jobSeries (the job page's chart data)", () => {
  it("turns cumulative CPU time into cores in use, with no rate across a counter reset", () => {
    const samples = [0, 10, 20, 30].map((s, i) =>
      sample("n1", s, {
        cpu: { usageSeconds: [100, 140, 5, 25][i] },
        memory: { currentBytes: GIB, limitBytes: 2 * GIB },
      }),
    );
    const series = jobSeries(samples, {
      spec: { cluster: "hpc1", scheduler: "slurm", user: "a", requested: { cores: 4 } },
    });
    const cores = series.cpu.find((l) => l.label === "cores in use");
    expect(cores?.values).toEqual([null, 4, null, 2]);
    expect(series.cpu.find((l) => l.label === "requested cores")?.values).toEqual([4, 4, 4, 4]);
    expect(series.memory.map((l) => l.label)).toEqual(["in use", "limit"]);
  });

  it("draws one line per node on a shared time axis, and prefers whole-job samples over steps", () => {
    const samples = [
      sample("n1", 0, { memory: { currentBytes: 1 } }),
      sample("n2", 5, { memory: { currentBytes: 2 } }),
      sample("n1", 10, { memory: { currentBytes: 3 } }),
      sample("n1", 10, { step: "batch", memory: { currentBytes: 99 } }),
    ];
    const series = jobSeries(samples);
    expect(series.x).toHaveLength(3);
    expect(series.memory.map((l) => [l.label, l.values])).toEqual([
      ["in use n1", [1, null, 3]],
      ["in use n2", [null, 2, null]],
    ]);
  });

  it("falls back to the request when the cgroup reports no memory limit", () => {
    const samples = [
      sample("n1", 0, { memory: { currentBytes: GIB } }),
      sample("n1", 10, { memory: { currentBytes: GIB } }),
    ];
    const series = jobSeries(samples, {
      spec: { cluster: "hpc1", scheduler: "slurm", user: "a", requested: { memoryBytes: 8 * GIB } },
    });
    expect(series.memory.map((l) => [l.label, l.values])).toEqual([
      ["in use", [GIB, GIB]],
      ["requested", [8 * GIB, 8 * GIB]],
    ]);
  });

  it("gives each GPU its utilisation and memory line", () => {
    const gpus = (util: number) => [
      { index: 1, utilizationPercent: 0, memoryUsedBytes: 0 },
      { index: 0, utilizationPercent: util, memoryUsedBytes: 3 * GIB },
    ];
    const series = jobSeries([sample("g1", 0, { gpus: gpus(80) }), sample("g1", 10, { gpus: gpus(90) })]);
    expect(series.gpu.map((l) => [l.label, l.values])).toEqual([
      ["GPU 0", [80, 90]],
      ["GPU 1", [0, 0]],
    ]);
    expect(series.gpuMemory[0].values).toEqual([3 * GIB, 3 * GIB]);
  });

  it("gives two MIG instances of one GPU a line each, not one line of the last", () => {
    const mig = (gpuInstanceId: number, util: number) => ({
      index: 1,
      utilizationPercent: util,
      memoryUsedBytes: gpuInstanceId * GIB,
      mig: { gpuInstanceId, profile: "1g.5gb" },
    });
    const series = jobSeries([sample("g1", 0, { gpus: [mig(14, 10), mig(13, 90)] })]);
    expect(series.gpu.map((l) => [l.label, l.values])).toEqual([
      ["GPU 1 MIG 1g.5gb (GI 13)", [90]],
      ["GPU 1 MIG 1g.5gb (GI 14)", [10]],
    ]);
    expect(series.gpuMemory.map((l) => l.values)).toEqual([[13 * GIB], [14 * GIB]]);
  });
});
