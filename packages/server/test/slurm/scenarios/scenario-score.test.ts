// What the scorer excuses, pinned: SLURM's launch wait (its log) and true gaps, never a late first sample.
import type { Diagnosis } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { parseBatchStarts } from "./batch-starts.js";
import { SCENARIO_CLASSES } from "./scenario-classes.js";
import { type SampledRun, scoreDiagnosis } from "./scenario-score.js";

const IDLE_GPUS = SCENARIO_CLASSES.find((c) => c.name === "idle-gpus")!;
const START = Date.parse("2026-12-06T18:17:00Z");
const s = (seconds: number) => START + seconds * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Samples every 2 s from `first` to 60 s, as a prompt collector stores them. */
function run(launchSeconds: number, first: number, skip: [number, number] = [0, 0]): SampledRun {
  const sampleTimes: number[] = [];
  for (let t = first; t <= 60; t += 2) if (t <= skip[0] || t >= skip[1]) sampleTimes.push(s(t));
  return { sampleTimes, intervalSeconds: 2, startedAt: s(0), endedAt: s(59), launchedAt: s(launchSeconds) };
}

/** What the diagnosis says of a run whose samples start at `first`: the gap, and GPU use not judged. */
function abstaining(first: number, window = { start: iso(s(0)), end: iso(s(first)) }): Diagnosis {
  return {
    state: "COMPLETED",
    findings: [],
    unseen: [
      {
        source: "usage-samples",
        reason: `No usage sample from vm for ${first} s (the usual interval is 2 s)`,
        window,
      },
      {
        source: "gpu-metrics",
        reason: "The use of GPU 0 on vm was not judged: its samples cover 58% of the run",
        window: { start: iso(s(0)), end: iso(s(59)) },
      },
      // The readers' own blind spots, told of for every job of the proc phase.
      { source: "proc", reason: "The job's usage on vm was summed from /proc, which cannot see …" },
      {
        source: "nvidia-smi",
        reason: "The job's GPU readings on vm came from nvidia-smi, which cannot see …",
      },
    ],
  } as unknown as Diagnosis;
}

describe("scoreDiagnosis: stretches without samples", () => {
  it("accepts a gap and an abstention that SLURM's late start of the script explains, the collector prompt after it", () => {
    const score = scoreDiagnosis(IDLE_GPUS, "1", abstaining(28), [], 2000, run(27, 28));
    expect(score).toMatchObject({
      exact: true,
      unseenExplained: [
        { source: "usage-samples", cause: "SLURM launched late" },
        { source: "gpu-metrics", cause: "SLURM launched late" },
      ],
      missing: ["gpus_unused (not judged: SLURM launched late)"],
      launchWaitSeconds: 27,
      firstSampleSeconds: 1,
      prompt: true,
    });
  });

  it("holds a late first sample against the collector when the script began at the job's Start", () => {
    const score = scoreDiagnosis(IDLE_GPUS, "1", abstaining(28), [], 2000, run(0, 28));
    expect(score).toMatchObject({ exact: false, prompt: false, firstSampleSeconds: 28 });
    expect(score.unseenExtra).toEqual(["usage-samples", "gpu-metrics"]);
    expect(score.missing).toEqual(["gpus_unused"]);
  });

  it("names a true gap in the middle of the run the collector's, not SLURM's", () => {
    const window = { start: iso(s(20)), end: iso(s(40)) };
    const score = scoreDiagnosis(IDLE_GPUS, "1", abstaining(20, window), [], 2000, run(5, 6, [20, 40]));
    expect(score).toMatchObject({ exact: true, collectorGapSeconds: 20, prompt: true });
    expect(score.unseenExplained).toEqual([
      { source: "usage-samples", cause: "collector gap" },
      { source: "gpu-metrics", cause: "collector gap" },
    ]);
    expect(score.missing).toEqual(["gpus_unused (not judged: collector gap)"]);
  });

  it("does not accept an unobserved window that the stored samples contradict", () => {
    const atStart = scoreDiagnosis(IDLE_GPUS, "1", abstaining(28), [], 2000, run(27, 2));
    const midRun = { start: iso(s(20)), end: iso(s(40)) };
    const inMiddle = scoreDiagnosis(IDLE_GPUS, "1", abstaining(20, midRun), [], 2000, run(5, 6));
    for (const score of [atStart, inMiddle]) {
      expect(score.exact).toBe(false);
      expect(score.unseenExtra).toContain("usage-samples");
    }
  });

  it("reads when each batch script began from SLURM's log, the first line per job, in local time", () => {
    const launches = parseBatchStarts(
      [
        "[2026-12-06T19:29:37.048] something else 17043012",
        "[2026-12-06T19:29:50.269] Launching batch job 17043012 for UID 0",
        "[2026-12-06T19:29:51.833] Launching batch job 17043007 for UID 1000",
        "[2026-12-06T19:29:52.001] [17043007.batch] task 0 (40211) started 2026-12-06T19:29:52",
        "[2026-12-06T19:29:52.100] [17043007.0] task 0 (40299) started 2026-12-06T19:29:52",
        "[2026-12-06T19:31:00.000] Launching batch job 17043012 for UID 0",
      ].join("\n"),
    );
    expect([...launches.keys()]).toEqual(["17043012", "17043007"]);
    // The launch where that is all the log says; the batch task's start where it says more.
    expect(launches.get("17043012")).toBe(new Date(2026, 11, 6, 19, 29, 50, 269).getTime());
    expect(launches.get("17043007")).toBe(new Date(2026, 11, 6, 19, 29, 52, 1).getTime());
  });
});

describe("scoreDiagnosis: findings a class may also have", () => {
  const LOADER = SCENARIO_CLASSES.find((c) => c.name === "stalled-data-loader")!;
  const finding = (kind: string) => ({ kind, evidence: [] });
  const withFindings = (...kinds: string[]) =>
    ({
      ...abstaining(0, { start: iso(s(0)), end: iso(s(0)) }),
      unseen: [],
      findings: kinds.map(finding),
    }) as unknown as Diagnosis;

  it("counts a kind the class may also have as neither missing nor unsupported, and any other as unsupported", () => {
    expect(LOADER.expect.mayAlso).toContain("cpu_oversubscribed");
    const also = scoreDiagnosis(
      LOADER,
      "1",
      withFindings("stalled_data_loader", "cpu_oversubscribed"),
      [],
      1000,
    );
    expect(also.unsupported).toEqual([]);
    const other = scoreDiagnosis(
      LOADER,
      "1",
      withFindings("stalled_data_loader", "cpu_low_efficiency"),
      [],
      1000,
    );
    expect(other.unsupported).toEqual(["cpu_low_efficiency"]);
    const mustNot = scoreDiagnosis(LOADER, "1", withFindings("stalled_data_loader", "gpus_unused"), [], 1000);
    expect(mustNot.unsupported).toEqual(["gpus_unused (must not)"]);
  });
});
