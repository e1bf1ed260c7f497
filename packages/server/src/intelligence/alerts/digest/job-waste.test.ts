import type { JobRecord } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { jobWaste, wasteScore } from "./job-waste.js";

const GIB = 2 ** 30;
const job = (extra: Partial<JobRecord>): JobRecord => ({
  cluster: "hpc1",
  jobId: "1",
  phase: "ended",
  source: "slurm-controller",
  spec: {
    cluster: "hpc1",
    scheduler: "slurm",
    user: "alice",
    requested: { cores: 8, memoryBytes: 64 * GIB, gpus: 2 },
  },
  submittedAt: "2026-12-01T00:00:00Z",
  startedAt: "2026-12-01T00:00:00Z",
  endedAt: "2026-12-01T02:00:00Z",
  ...extra,
});

describe("jobWaste", () => {
  it("counts reserved minus used over the run time", () => {
    const w = jobWaste(job({ peaks: { cpuTimeSeconds: 2 * 3600, memoryBytes: 16 * GIB, gpusUsed: 1 } }));
    expect(w).toEqual({ unusedCoreHours: 14, unusedGpuHours: 2, unusedMemoryGiBHours: 96 });
    expect(wasteScore(w)).toBe(2 * 8 + 14 + 96 / 8);
  });

  it("counts nothing it cannot measure", () => {
    expect(jobWaste(job({ peaks: undefined }))).toEqual({
      unusedCoreHours: 0,
      unusedGpuHours: 0,
      unusedMemoryGiBHours: 0,
    });
    expect(jobWaste(job({ startedAt: undefined, peaks: { memoryBytes: GIB } })).unusedMemoryGiBHours).toBe(0);
  });
});
