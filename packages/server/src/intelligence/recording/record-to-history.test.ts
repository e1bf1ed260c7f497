import type { JobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";
import { isCensored } from "../resources.js";
import { categoryCode, specToHistoryJob, storedJobToHistoryJob } from "./record-to-history.js";

const spec: JobSpec = {
  cluster: "hpc1",
  scheduler: "slurm",
  user: "alice",
  account: "chem",
  partition: "gpu",
  qos: "7",
  jobName: "train",
  requested: { memoryBytes: 8e9, cores: 4, gpus: 1, walltimeSeconds: 3600 },
};

const ended = (state: StoredJob["state"], peaks: StoredJob["peaks"] = {}): StoredJob => ({
  cluster: "hpc1",
  jobId: "42",
  spec,
  submittedAt: 1_000,
  startedAt: 1_100,
  endedAt: 2_100,
  state,
  peaks,
});

describe("storedJobToHistoryJob", () => {
  it("reads a completed job as an exact target: requests from the spec, usage from the peaks", () => {
    const job = storedJobToHistoryJob(
      ended("COMPLETED", { memoryBytes: 3e9, cpuTimeSeconds: 2500, gpusUsed: 1 }),
    );
    expect(job).toMatchObject({
      id: "hpc1/42",
      user: "hpc1/alice",
      executable: "hpc1/name:train",
      group: "chem",
      submitTime: 1_000,
      startTime: 1_100,
      endTime: 2_100,
      outcome: "completed",
      requested: { memoryBytes: 8e9, cores: 4, gpus: 1, walltimeSeconds: 3600 },
      used: { memoryBytes: 3e9, cores: 2.5, gpus: 1, walltimeSeconds: 1000 },
    });
    expect(isCensored(job)).toBe(false);
  });

  it("makes out-of-memory, timeout and every other end a censored lower bound", () => {
    expect(storedJobToHistoryJob(ended("OUT_OF_MEMORY")).outcome).toBe("oom");
    expect(storedJobToHistoryJob(ended("TIMEOUT")).outcome).toBe("timeout");
    expect(storedJobToHistoryJob(ended("CANCELLED")).outcome).toBe("cancelled");
    for (const state of ["FAILED", "NODE_FAIL", "PREEMPTED"] as const) {
      const job = storedJobToHistoryJob(ended(state));
      expect(job.outcome).toBe("failed");
      expect(isCensored(job)).toBe(true);
    }
  });

  it("reads a SIGKILL after the peak passed the memory request as a memory kill (SLURM without cgroups)", () => {
    const killed = (state: StoredJob["state"], signal: number, peak: number): StoredJob => ({
      ...ended(state, { memoryBytes: peak }),
      signal,
    });
    expect(storedJobToHistoryJob(killed("FAILED", 9, 9e9)).outcome).toBe("oom");
    expect(storedJobToHistoryJob(killed("CANCELLED", 9, 9e9)).outcome).toBe("oom");
    // Under the request, another signal, or an end of its own: not a memory kill.
    expect(storedJobToHistoryJob(killed("FAILED", 9, 7e9)).outcome).toBe("failed");
    expect(storedJobToHistoryJob(killed("CANCELLED", 15, 9e9)).outcome).toBe("cancelled");
    expect(storedJobToHistoryJob(killed("TIMEOUT", 9, 9e9)).outcome).toBe("timeout");
    expect(storedJobToHistoryJob(killed("COMPLETED", 9, 9e9)).outcome).toBe("completed");
  });

  it("prefers the recorded run time to the start and end", () => {
    expect(storedJobToHistoryJob(ended("COMPLETED", { runTimeSeconds: 900 })).used.walltimeSeconds).toBe(900);
  });
});

describe("specToHistoryJob", () => {
  it("maps a job about to run like a stored one, at the given submit time", () => {
    const job = specToHistoryJob({ ...spec, executable: "python" }, 5_000);
    expect(job).toMatchObject({
      submitTime: 5_000,
      user: "hpc1/alice",
      executable: "hpc1/python",
      queue: "7",
    });
    expect(job.partition).toBe(categoryCode("gpu"));
  });
});

describe("categoryCode", () => {
  it("keeps numeric names and gives other names a stable code that float32 holds exactly", () => {
    expect(categoryCode("12")).toBe("12");
    expect(categoryCode(undefined)).toBeUndefined();
    const gpu = Number(categoryCode("gpu"));
    expect(gpu).toBe(Number(categoryCode("gpu")));
    expect(gpu).not.toBe(Number(categoryCode("cpu")));
    expect(Math.fround(gpu)).toBe(gpu);
  });
});
