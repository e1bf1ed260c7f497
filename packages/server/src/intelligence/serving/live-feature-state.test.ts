import { describe, expect, it } from "vitest";
import { buildFeatureTable } from "../features/feature-table.js";
import type { HistoryJob, JobOutcomeKind } from "../history-job.js";
import { resourceSpec } from "../resources.js";
import { LiveFeatureState } from "./live-feature-state.js";

/** A small, deterministic history: a few users running a few applications, some killed. */
function history(n: number): HistoryJob[] {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const jobs: HistoryJob[] = [];
  let t = 1_000_000;
  for (let i = 0; i < n; i++) {
    t += Math.floor(rand() * 600) + 1;
    const user = `c/u${Math.floor(rand() * 5)}`;
    const app = Math.floor(rand() * 3);
    const run = 60 + Math.floor(rand() * 7200) + i / 1000;
    const outcome: JobOutcomeKind = rand() < 0.1 ? "oom" : "completed";
    jobs.push({
      id: `j${i}`,
      submitTime: t,
      startTime: t + 5,
      endTime: t + 5 + run,
      user,
      executable: `c/app${app}`,
      queue: String(app),
      requested: { memoryBytes: 2 ** (30 + app), cores: 2 ** app, walltimeSeconds: 7200 * (app + 1) },
      used: { memoryBytes: 2 ** (28 + app) * (1 + rand()), cores: 1 + rand(), walltimeSeconds: run },
      outcome,
    });
  }
  return jobs;
}

describe("LiveFeatureState", () => {
  it("computes for a job about to run exactly the row training computed at its submission", () => {
    const jobs = history(400);
    for (const resource of ["memory", "walltime"] as const) {
      const table = buildFeatureTable(jobs, resourceSpec(resource));
      const F = table.featureNames.length;
      for (const k of [50, 123, 250, 399]) {
        const job = jobs[k];
        const state = new LiveFeatureState();
        // What had ended by the submission, in end order.
        const ended = jobs.slice(0, k).filter((j) => j.endTime < job.submitTime);
        for (const j of ended.sort((a, b) => a.endTime - b.endTime)) state.observeEnded(j);
        const row = state.features(resource, { ...job, used: {} });
        expect(Array.from(row)).toEqual(Array.from(table.x.subarray(k * F, (k + 1) * F)));
        expect(state.userJobs(row)).toBe(table.userJobs[k]);
      }
    }
  });

  it("gives the same submission the same row whenever it is asked, until another job ends", () => {
    const jobs = history(300);
    const state = new LiveFeatureState();
    for (const j of jobs.slice(0, 200).sort((a, b) => a.endTime - b.endTime)) state.observeEnded(j);
    const job = { ...jobs[250], used: {} };
    const now = state.features("memory", job);
    // The same submission asked a minute, an hour and a week later: nothing moves with the clock.
    for (const later of [60, 3600, 7 * 86_400]) {
      const again = state.features("memory", { ...job, submitTime: job.submitTime + later });
      expect(Array.from(again)).toEqual(Array.from(now));
    }
  });

  it("counts a job observed twice once", () => {
    const [job] = history(1);
    const state = new LiveFeatureState();
    expect(state.observeEnded(job)).toBe(true);
    expect(state.observeEnded(job)).toBe(false);
    expect(state.jobs).toBe(1);
  });
});
