import type { JobRecord } from "@jobsight/schemas/light";
import { describe, expect, it } from "vitest";
import { markMemoryKill } from "./memory-kill.js";

const GiB = 2 ** 30;

function ended(state: "FAILED" | "CANCELLED" | "TIMEOUT", batchRss: number, signal = 9): JobRecord {
  return {
    cluster: "hpc1",
    jobId: "7",
    phase: "ended",
    source: "slurm-controller",
    spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 2 * GiB } },
    submittedAt: "2026-12-02T10:00:00Z",
    outcome: { state, signal },
    steps: [
      { stepId: "batch", state: "FAILED", signal, maxRssBytes: batchRss },
      { stepId: "extern", state: "COMPLETED", maxRssBytes: 1024 },
    ],
    peaks: { memoryBytes: batchRss },
  };
}

describe("markMemoryKill", () => {
  it("reads a signal-9 kill above the memory request as OUT_OF_MEMORY, job and step", () => {
    const record = ended("FAILED", 3 * GiB);
    markMemoryKill(record);
    expect(record.outcome).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
    expect(record.outcome!.reason).toMatch(/FAILED by signal 9/);
    expect(record.steps!.map((s) => s.state)).toEqual(["OUT_OF_MEMORY", "COMPLETED"]);
  });

  it("leaves a kill inside the request, another signal, or a timeout as SLURM said", () => {
    for (const record of [ended("FAILED", GiB), ended("FAILED", 3 * GiB, 15), ended("TIMEOUT", 3 * GiB)]) {
      const before = structuredClone(record);
      markMemoryKill(record);
      expect(record.outcome).toEqual(before.outcome);
    }
  });

  it("measures against the allocated memory when SLURM allocated more than was asked", () => {
    const record = { ...ended("CANCELLED", 3 * GiB), allocated: { memoryBytes: 4 * GiB } };
    markMemoryKill(record);
    expect(record.outcome!.state).toBe("CANCELLED");
  });
});
