import type { JobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { scoredOutcome } from "../../data-plane/stores/prediction-store.js";
import type { HistoryJob } from "../history-job.js";
import { LiveFeatureState } from "./live-feature-state.js";
import { predictSpecs } from "./predict-specs.js";
import type { RawOutcome } from "./predictor.js";
import { RECENT_OOM_FEATURE, raiseAboveKill } from "./recent-kill-floor.js";
import { granularityFor, toWireResource, withPolicy } from "./wire-prediction.js";

const MiB = 2 ** 20;
const spec: JobSpec = {
  cluster: "e2e",
  scheduler: "slurm",
  user: "alice",
  jobName: "train",
  requested: { memoryBytes: 100 * MiB, cores: 1, walltimeSeconds: 180 },
};
const NOW = 1_800_000_000;

/** The job as the data plane hands it to the state once it ended. */
function ended(
  id: string,
  end: number,
  outcome: HistoryJob["outcome"],
  usedMiB: number,
  askedMiB = 100,
): HistoryJob {
  return {
    id,
    submitTime: end - 60,
    startTime: end - 50,
    endTime: end,
    user: "e2e/alice",
    executable: "e2e/name:train",
    requested: { memoryBytes: askedMiB * MiB, cores: 1, walltimeSeconds: 180 },
    used: { memoryBytes: usedMiB * MiB, walltimeSeconds: 50 },
    outcome,
  };
}

async function memoryOf(state: LiveFeatureState, s: JobSpec = spec): Promise<RawOutcome> {
  const [outcomes] = await predictSpecs([{ spec: s }], state, undefined, NOW);
  return outcomes.find((o) => o.resource === "memory") as RawOutcome;
}

describe("a resubmission after a memory kill", () => {
  it("is told to ask for more than the job died with, even with no model yet", async () => {
    const state = new LiveFeatureState();
    state.observeEnded(ended("e2e/7", NOW - 600, "oom", 300));
    const raw = await memoryOf(state);
    expect(raw.prediction).toMatchObject({ status: "ok", value: 450 * MiB, low: 300 * MiB, confidence: 0.5 });
    const wire = toWireResource(raw, spec, granularityFor(spec));
    expect(wire).toMatchObject({
      status: "ok",
      requested: 100 * MiB,
      value: 450 * MiB,
      low: 300 * MiB,
      high: 450 * MiB,
      confidence: 0.5,
      adjustments: [{ rule: "recent_oom", before: 100 * MiB, after: 450 * MiB }],
      evidence: {
        group: "user=alice,executable=name:train",
        jobs: 1,
        censoredJobs: 1,
        features: [RECENT_OOM_FEATURE],
      },
    });
    expect(wire).not.toHaveProperty("nominalLevel");
    // The accuracy report judges its value, not its range: the range claims no level.
    expect(scoredOutcome(wire)).toEqual({
      resource: "memory",
      status: "ok",
      value: 450 * MiB,
      requested: 100 * MiB,
    });
    // The other resources still have no model: nothing is guessed for them.
    const [all] = await predictSpecs([{ spec }], state, undefined, NOW);
    expect(all.filter((o) => o.resource !== "memory").map((o) => o.prediction.status)).toEqual([
      "insufficient_evidence",
      "insufficient_evidence",
      "insufficient_evidence",
      "insufficient_evidence",
    ]);
  });

  it("says nothing new when the job already asks for enough, or another application was killed", async () => {
    const state = new LiveFeatureState();
    state.observeEnded(ended("e2e/7", NOW - 600, "oom", 300));
    const generous = await memoryOf(state, {
      ...spec,
      requested: { ...spec.requested, memoryBytes: 512 * MiB },
    });
    expect(generous.prediction).toMatchObject({ status: "insufficient_evidence", reasonCode: "no_model" });
    const other = await memoryOf(state, { ...spec, jobName: "analyse" });
    expect(other.prediction).toMatchObject({ status: "insufficient_evidence", reasonCode: "no_model" });
  });

  it("is no longer floored once a run of the application completed, nor a week later", async () => {
    const retried = new LiveFeatureState();
    retried.observeEnded(ended("e2e/7", NOW - 600, "oom", 300));
    retried.observeEnded(ended("e2e/8", NOW - 60, "completed", 380, 512));
    expect((await memoryOf(retried)).prediction.status).toBe("insufficient_evidence");
    const old = new LiveFeatureState();
    old.observeEnded(ended("e2e/7", NOW - 8 * 86_400, "oom", 300));
    expect((await memoryOf(old)).prediction.status).toBe("insufficient_evidence");
  });

  it("raises a model's recommendation under the floor, keeps one above it, and lists the step before the policy's", () => {
    const state = new LiveFeatureState();
    state.observeEnded(ended("e2e/7", NOW - 600, "oom", 300));
    const kill = state.recentMemoryKill({ ...ended("next", NOW, "completed", 0), submitTime: NOW })!;
    expect(kill.lowerBoundBytes).toBe(300 * MiB);
    const model = (value: number): RawOutcome => ({
      resource: "memory",
      prediction: {
        status: "ok",
        value,
        low: value / 2,
        high: value * 1.2,
        nominalLevel: 0.9,
        confidence: 0.93,
        evidence: { group: "user=alice", jobs: 20, censoredJobs: 0, features: ["app_p90"] },
      },
    });
    const raised = raiseAboveKill(model(120 * MiB), kill, state.kills, 100 * MiB, "g");
    expect(raised.prediction).toMatchObject({
      status: "ok",
      value: 450 * MiB,
      low: 300 * MiB,
      high: 450 * MiB,
      nominalLevel: 0.9,
      confidence: 0.93,
      evidence: { censoredJobs: 1, features: [RECENT_OOM_FEATURE, "app_p90"] },
    });
    expect(raised.adjustments).toEqual([{ rule: "recent_oom", before: 120 * MiB, after: 450 * MiB }]);
    const above = model(600 * MiB);
    expect(raiseAboveKill(above, kill, state.kills, 100 * MiB, "g")).toBe(above);

    // A policy cap after the floor: both rules are listed, the floor's first.
    const wire = toWireResource(raised, spec, granularityFor(spec));
    const [capped] = withPolicy([wire], spec, { name: "p", caps: { memory: 400 * MiB } }, "live", {});
    expect(capped).toMatchObject({ value: 400 * MiB });
    expect(capped.status === "ok" && capped.adjustments?.map((a) => a.rule)).toEqual(["recent_oom", "cap"]);
  });
});
