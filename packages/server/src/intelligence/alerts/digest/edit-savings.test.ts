import type { JobRecord } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { editSavings } from "./edit-savings.js";

const GIB = 2 ** 30;
const job: JobRecord = {
  cluster: "hpc1",
  jobId: "1",
  phase: "ended",
  source: "slurm-controller",
  spec: {
    cluster: "hpc1",
    scheduler: "slurm",
    user: "alice",
    requested: { cores: 8, memoryBytes: 64 * GIB, gpus: 2, gpuModel: "A100" },
  },
  submittedAt: "2026-12-01T00:00:00Z",
  startedAt: "2026-12-01T00:00:00Z",
  endedAt: "2026-12-01T02:00:00Z",
  peaks: { cpuTimeSeconds: 2 * 3600, memoryBytes: 12 * GIB, gpusUsed: 1 },
};

describe("editSavings", () => {
  it("saves requested − advised over the run time, per resource, with the job's GPU type", () => {
    const saved = editSavings(job, [
      { resource: "cores", requested: 8, advised: 2 },
      { resource: "memory", requested: 64 * GIB, advised: 16 * GIB },
      { resource: "gpus", requested: 2, advised: 1 },
      { resource: "walltime", requested: 4 * 3600, advised: 3 * 3600 },
    ]);
    expect(saved).toEqual({ coreHours: 12, memoryGibHours: 96, gpuHours: 2, gpuType: "a100" });
  });

  it("never counts a cut below what the job used as saved", () => {
    const saved = editSavings(job, [
      { resource: "memory", requested: 64 * GIB, advised: 4 * GIB },
      { resource: "gpus", requested: 2, advised: 0 },
    ]);
    // Peak 12 GiB and one GPU busy: only down to those.
    expect(saved.memoryGibHours).toBe(104);
    expect(saved.gpuHours).toBe(2);
  });

  it("saves nothing when the run time is unknown", () => {
    const unknown = { ...job, startedAt: undefined, peaks: undefined };
    expect(editSavings(unknown, [{ resource: "cores", requested: 8, advised: 1 }]).coreHours).toBe(0);
  });
});
