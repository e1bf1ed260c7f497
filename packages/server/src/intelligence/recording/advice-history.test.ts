import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type {
  AdviceGroup,
  AdvisingModelRow,
  RecordedAdvice,
  RecordedResource,
} from "../../data-plane/queries/recorded-advice.js";
import { adviceHistory } from "./advice-history.js";

const GIB = 2 ** 30;
const V1: AdvisingModelRow = {
  version: "m-1",
  trainedAt: "2026-11-01T02:00:00.000Z",
  trainingJobs: 4000,
  dataStart: "2026-08-01T00:00:00.000Z",
  dataEnd: "2026-10-31T23:00:00.000Z",
};
const V2: AdvisingModelRow = {
  version: "m-2",
  trainedAt: "2026-11-08T02:00:00.000Z",
  trainingJobs: 4600,
  dataStart: "2026-08-01T00:00:00.000Z",
  dataEnd: "2026-11-07T23:00:00.000Z",
};

const memory = (value: number, extra: Partial<RecordedResource> = {}): RecordedResource => ({
  resource: "memory",
  status: "ok",
  unit: "bytes",
  value,
  low: value / 2,
  high: value,
  confidence: 0.9,
  ...extra,
});
const walltime = (value: number): RecordedResource => ({
  resource: "walltime",
  status: "ok",
  unit: "seconds",
  value,
  confidence: 0.8,
});
const insufficient: RecordedResource = {
  resource: "memory",
  status: "insufficient_evidence",
  reasonCode: "too_few_similar_jobs",
  reason: "Only 2 similar jobs have ended.",
};

let day = 0;
/** A group asked on the next day, `asked` times, with the evidence of memory (jobs) at its start and end. */
function group(
  version: string,
  resources: RecordedResource[],
  options: { asked?: number; jobs?: [number, number]; mode?: "shadow" | "live" } = {},
): AdviceGroup {
  day += 1;
  const at = (hour: number) => new Date(Date.UTC(2026, 10, day, hour)).toISOString();
  const [first, last] = options.jobs ?? [10, 10];
  const evidence = (jobs: number) => [
    { resource: "memory" as const, group: "user=alice,executable=train.py", jobs },
  ];
  return {
    modelVersion: version,
    mode: options.mode ?? "live",
    firstAsked: at(9),
    lastAsked: at(17),
    asked: options.asked ?? 1,
    resources,
    firstEvidence: evidence(first),
    lastEvidence: evidence(last),
  };
}

function history(groups: AdviceGroup[], models: AdvisingModelRow[] = [V1, V2], truncated = false) {
  const advice: RecordedAdvice = {
    groups,
    asked: groups.reduce((n, g) => n + g.asked, 0),
    models,
    truncated,
  };
  const out = adviceHistory({
    cluster: "hpc1",
    jobId: "4242",
    from: "2026-10-01T00:00:00.000Z",
    to: "2026-12-01T00:00:00.000Z",
    advice,
  });
  expect(validators.AdviceHistory.validate(out)).toEqual({ ok: true, value: out });
  return out;
}

const memoryOf = (h: ReturnType<typeof history>) =>
  h.resources.find((r) => r.resource === "memory")?.history ?? [];

describe("adviceHistory", () => {
  it("gives two entries when two model versions advise different values, the second naming both versions and their training", () => {
    const h = history([group("m-1", [memory(48 * GIB)], { asked: 3 }), group("m-2", [memory(32 * GIB)])]);
    const entries = memoryOf(h);
    expect(entries.map((e) => [e.modelVersions, e.value, e.asked, e.causes])).toEqual([
      [["m-1"], 48 * GIB, 3, ["first"]],
      [["m-2"], 32 * GIB, 1, ["model_version"]],
    ]);
    expect(entries[0].why).toBe(
      "First advice: 48 GiB, from model m-1 (trained 2026-11-01 on 4,000 jobs from 2026-08-01 to 2026-10-31).",
    );
    expect(entries[1].why).toBe(
      "Lowered from 48 GiB to 32 GiB: the model version changed from m-1 (trained 2026-11-01 on 4,000 jobs from 2026-08-01 to 2026-10-31) to m-2 (trained 2026-11-08 on 4,600 jobs from 2026-08-01 to 2026-11-07).",
    );
    expect(h.models.map((m) => [m.version, m.asked, m.trainingJobs])).toEqual([
      ["m-1", 3, 4000],
      ["m-2", 1, 4600],
    ]);
  });

  it("says the calibration was refitted when the next revision of the same trees answered", () => {
    const c1: AdvisingModelRow = { ...V1, version: "m-1.c1", trainedAt: "2026-11-02T02:00:00.000Z" };
    const h = history([group("m-1", [memory(48 * GIB)]), group("m-1.c1", [memory(40 * GIB)])], [V1, c1]);
    expect(memoryOf(h)[1]).toMatchObject({ causes: ["model_version"], modelVersions: ["m-1.c1"] });
    expect(memoryOf(h)[1].why).toBe(
      "Lowered from 48 GiB to 40 GiB: the calibration of model m-1 was refitted on the jobs that ended since (m-1 to m-1.c1; the trees are the same).",
    );
  });

  it("keeps one entry, naming both versions, when a new version gives the same advice", () => {
    const h = history([group("m-1", [memory(8 * GIB)]), group("m-2", [memory(8 * GIB)], { asked: 2 })]);
    const [entry] = memoryOf(h);
    expect(memoryOf(h)).toHaveLength(1);
    expect(entry).toMatchObject({ modelVersions: ["m-1", "m-2"], asked: 3, causes: ["first"] });
    expect(entry.lastAsked).toBe(h.models[1].lastAsked);
  });

  it("says the group history changed when the same version answered differently, with the evidence before and after", () => {
    const h = history([
      group("m-1", [memory(16 * GIB)], { jobs: [10, 12] }),
      group("m-1", [memory(24 * GIB)], { jobs: [15, 15] }),
    ]);
    const second = memoryOf(h)[1];
    expect(second.causes).toEqual(["group_history"]);
    expect(second.why).toBe(
      "Raised from 16 GiB to 24 GiB: the same model m-1 answered differently: the job's group history changed (jobs of the same user and application ended in between): it rests on 15 past jobs of user=alice,executable=train.py instead of 12.",
    );
  });

  it("tells a recent memory kill apart from the policy", () => {
    const killed = memory(12 * GIB, {
      adjustments: [{ rule: "recent_oom", before: 8 * GIB, after: 12 * GIB }],
    });
    const second = memoryOf(history([group("m-1", [memory(8 * GIB)]), group("m-1", [killed])]))[1];
    expect(second.causes).toEqual(["group_history"]);
    expect(second.why).toContain("a recent run of the same application was killed for memory");
  });

  it("names a policy adjustment when only a rule moved the value", () => {
    const capped = memory(32 * GIB, { adjustments: [{ rule: "cap", before: 48 * GIB, after: 32 * GIB }] });
    const h = history([
      group("m-1", [memory(48 * GIB)]),
      group("m-1", [capped]),
      group("m-1", [memory(48 * GIB)]),
    ]);
    const entries = memoryOf(h);
    expect(entries.map((e) => e.causes)).toEqual([["first"], ["policy"], ["policy"]]);
    expect(entries[1].why).toBe(
      "Lowered from 48 GiB to 32 GiB: a policy adjustment: the policy's cap now applies (48 GiB → 32 GiB).",
    );
    expect(entries[1].adjustments).toEqual(capped.adjustments);
    expect(entries[2].why).toBe(
      "Raised from 32 GiB to 48 GiB: a policy adjustment: the policy's cap no longer applies.",
    );
  });

  it("names a rule that now gives another value, and a model change beside it", () => {
    const cap = (after: number) => memory(after, { adjustments: [{ rule: "cap", before: 48 * GIB, after }] });
    const entries = memoryOf(history([group("m-1", [cap(32 * GIB)]), group("m-2", [cap(40 * GIB)])]));
    expect(entries[1].causes).toEqual(["model_version", "policy"]);
    expect(entries[1].why).toContain("the policy's cap now gives 40 GiB instead of 32 GiB");
  });

  it("reports a change of status both ways, and a version the registry no longer has", () => {
    const h = history(
      [group("m-0", [insufficient]), group("m-1", [memory(8 * GIB)]), group("m-2", [insufficient])],
      [V1],
    );
    const entries = memoryOf(h);
    expect(entries.map((e) => [e.status, e.causes])).toEqual([
      ["insufficient_evidence", ["first"]],
      ["ok", ["model_version", "status"]],
      ["insufficient_evidence", ["model_version", "status"]],
    ]);
    expect(entries[0]).toMatchObject({ reasonCode: "too_few_similar_jobs", reason: insufficient.reason });
    expect(entries[0].why).toBe(
      "First answer: no recommendation (Only 2 similar jobs have ended), from model m-0 (no longer in the registry).",
    );
    expect(entries[1].why).toMatch(/^A recommendation of 8 GiB where there was none \(Only 2 similar jobs/);
    expect(entries[2].why).toMatch(
      /^No recommendation any more \(Only 2 similar jobs have ended\): the model/,
    );
    expect(entries[2].why).toContain("to m-2 (no longer in the registry)");
    expect(h.models[0]).toEqual({
      version: "m-0",
      firstAsked: entries[0].firstAsked,
      lastAsked: entries[0].lastAsked,
      asked: 1,
    });
  });

  it("follows each resource on its own: one that did not change keeps one entry", () => {
    const h = history([
      group("m-1", [memory(8 * GIB), walltime(3600)]),
      group("m-1", [memory(9 * GIB), walltime(3600)], { jobs: [11, 11] }),
      group("m-2", [memory(9 * GIB), walltime(5400)]),
    ]);
    expect(h.resources.map((r) => [r.resource, r.unit, r.history.length])).toEqual([
      ["memory", "bytes", 2],
      ["walltime", "seconds", 2],
    ]);
    const wall = h.resources[1].history;
    expect(wall[0].modelVersions).toEqual(["m-1"]);
    expect(wall[0].asked).toBe(2);
    expect(wall[1].why).toMatch(/^Raised from 1 h to 1 h 30 min: the model version changed from m-1/);
  });

  it("marks advice given only in shadow mode, and says when older predictions were left out", () => {
    const h = history(
      [
        group("m-1", [memory(8 * GIB)], { mode: "shadow" }),
        group("m-2", [memory(6 * GIB)], { mode: "shadow" }),
      ],
      [V1, V2],
      true,
    );
    expect(h.truncated).toBe(true);
    expect(memoryOf(h).map((e) => e.shadow)).toEqual([true, true]);
    const seen = history([
      group("m-1", [memory(8 * GIB)], { mode: "shadow" }),
      group("m-1", [memory(8 * GIB)]),
    ]);
    expect(memoryOf(seen)[0].shadow).toBeUndefined();
  });

  it("is empty when nothing was recorded", () => {
    const h = history([]);
    expect(h).toMatchObject({ asked: 0, models: [], resources: [] });
    expect(h.truncated).toBeUndefined();
  });
});
