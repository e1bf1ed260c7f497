import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { buildContext } from "./context.js";
import type { DiagnosisInput } from "./input.js";
import { memoryProfiles } from "./memory-profile.js";
import { slurmRecord } from "./scenarios/build-record.js";
import { buildSeries, GIB } from "./scenarios/build-samples.js";
import { DIAGNOSIS_THRESHOLDS } from "./thresholds.js";

function profile(current: (i: number) => number, peakAtEnd?: number) {
  const samples: UsageSample[] = buildSeries({
    cluster: "hpc1",
    jobId: "1",
    node: "n1",
    start: "2026-01-01T00:00:00Z",
    intervalSeconds: 30,
    count: 40,
    memoryLimitBytes: 10 * GIB,
    shape: (i) => ({
      memory: { current: current(i), ...(i === 39 && peakAtEnd ? { peak: peakAtEnd } : {}) },
    }),
  });
  const record = slurmRecord({
    jobId: "1",
    user: "u",
    node: "n1",
    jobName: "j",
    requested: { memoryBytes: 10 * GIB },
    submittedAt: "2026-01-01T00:00:00Z",
    startedAt: "2026-01-01T00:00:00Z",
    endedAt: "2026-01-01T00:20:00Z",
    outcome: { state: "OUT_OF_MEMORY" },
  });
  const input: DiagnosisInput = { record, samples, events: [], sourcesSeen: {} };
  return memoryProfiles(buildContext(input, DIAGNOSIS_THRESHOLDS))[0];
}

describe("memoryProfiles", () => {
  it("calls a steady climb a leak", () => {
    const p = profile((i) => 1 * GIB + (8.8 * GIB * i) / 39);
    expect(p.pattern.kind).toBe("leak");
    expect(p.limitFrom).toBe("cgroup");
  });

  it("calls a jump within two intervals a spike", () => {
    const p = profile((i) => (i < 38 ? 3 * GIB : 9.7 * GIB));
    expect(p.pattern.kind).toBe("spike");
  });

  it("says the peak fell between samples when memory.peak is far above every sample", () => {
    const p = profile(() => 4 * GIB, 10 * GIB);
    expect(p.pattern.kind).toBe("peak-between-samples");
    expect(p.peakBytes).toBe(10 * GIB);
  });

  it("claims no pattern for a working set that breathes", () => {
    const p = profile((i) => (i % 2 ? 6 : 5) * GIB);
    expect(p.pattern.kind).toBe("unclear");
  });
});
