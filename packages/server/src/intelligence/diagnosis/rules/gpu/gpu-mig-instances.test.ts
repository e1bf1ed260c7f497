import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../diagnose.js";
import { checkEvidence } from "../../evidence-check.js";
import type { DiagnosisInput } from "../../input.js";
import { diagnosisScenarios } from "../../scenarios/all-scenarios.js";
import { GIB } from "../../scenarios/build-samples.js";

const NOW = "2026-12-01T00:00:00Z";
const OTHER = "GPU 0 MIG 1g.10gb (GI 14)";

/** What the second instance does in sample `i` (the first stays as busy as the scenario's GPU). */
type Other = (i: number) => { util: number; used: number } | undefined;

/**
 * The healthy GPU job (GPU 0 at ~90%, 52 GiB in use), its GPU split by MIG: instance 13 (3g.40gb)
 * keeps the scenario's utilisation with 30 GiB in use, instance 14 (1g.10gb) does what `other` says.
 */
function twoInstances(other: Other): DiagnosisInput {
  const i = structuredClone(diagnosisScenarios.find((s) => s.name === "healthy-gpu")!.input);
  for (const r of [i.record.spec.requested, i.record.allocated]) if (r) r.gpus = 2;
  const samples = i.samples.map((s, n): UsageSample => {
    if (!s.gpus) return s;
    const o = other(n);
    return {
      ...s,
      gpus: s.gpus.flatMap((g) => [
        {
          ...g,
          memoryUsedBytes: s.final ? 0 : 30 * GIB,
          memoryTotalBytes: 40 * GIB,
          mig: { gpuInstanceId: 13, profile: "3g.40gb" },
        },
        ...(o
          ? [
              {
                ...g,
                utilizationPercent: s.final ? 0 : o.util,
                memoryUsedBytes: s.final ? 0 : o.used,
                memoryTotalBytes: 10 * GIB,
                mig: { gpuInstanceId: 14, profile: "1g.10gb" },
              },
            ]
          : []),
      ]),
    };
  });
  return { ...i, samples };
}

describe("GPU rules over two MIG instances of one GPU", () => {
  it("calls the idle instance unused and names it, not the busy one beside it", () => {
    const i = twoInstances(() => ({ util: 0, used: 0 }));
    const d = diagnose(i, { now: NOW });
    expect(d.findings.map((f) => f.kind)).toEqual(["gpus_unused"]);
    const [f] = d.findings;
    expect(f.claim).toContain(
      `1 of the 2 GPUs the job reserved did no work for the whole job: ${OTHER} on gpu06`,
    );
    expect(f.claim).not.toContain("GI 13");
    expect(f.evidence.map((e) => e.metric)).toEqual([
      "gpus.0/gi14.utilizationPercent",
      "gpus.0/gi14.memoryUsedBytes",
    ]);
    expect(f.evidence[0].text).toMatch(new RegExp(`^${literal(OTHER)} on gpu06: below 5% utilisation`));
    expect(new Set(f.evidence[0].values)).toEqual(new Set([0]));
    expect(checkEvidence(d, i)).toEqual([]);
  });

  it("calls the instance that barely worked under-utilised, by its name and its own mean", () => {
    const i = twoInstances((n) => ({ util: 14 + (n % 3), used: 8 * GIB }));
    const d = diagnose(i, { now: NOW });
    expect(d.findings.map((f) => f.kind)).toEqual(["gpu_underutilised"]);
    const [f] = d.findings;
    expect(f.claim).toMatch(new RegExp(`${literal(OTHER)} on gpu06 averaged 1[45](\\.\\d)?%`));
    expect(f.claim).not.toContain("GI 13");
    expect(f.evidence.map((e) => e.metric)).toEqual(["gpus.0/gi14.utilizationPercent"]);
    expect(checkEvidence(d, i)).toEqual([]);
  });

  it("judges each instance's memory against its own size", () => {
    const i = twoInstances(() => ({ util: 85, used: GIB }));
    const d = diagnose(i, { now: NOW });
    expect(d.findings.map((f) => f.kind)).toEqual(["gpu_memory_overreserved"]);
    const [f] = d.findings;
    expect(f.claim).toContain(`${OTHER} on gpu06 used at most 1 GiB of 10 GiB (10%)`);
    expect(f.claim).not.toContain("GI 13");
    expect(f.evidence.map((e) => e.metric)).toEqual([
      "gpus.0/gi14.memoryUsedBytes",
      "gpus.0/gi14.memoryTotalBytes",
    ]);
    expect(f.evidence[1].values).toEqual([10 * GIB]);
    expect(checkEvidence(d, i)).toEqual([]);
  });

  it("makes no GPU finding when both instances worked, and names an instance seen too briefly as unseen", () => {
    expect(
      diagnose(
        twoInstances(() => ({ util: 80, used: 9 * GIB })),
        { now: NOW },
      ).findings,
    ).toEqual([]);
    const brief = diagnose(
      twoInstances((n) => (n < 5 ? { util: 0, used: 0 } : undefined)),
      { now: NOW },
    );
    expect(brief.findings).toEqual([]);
    expect(brief.unseen).toEqual([
      expect.objectContaining({
        source: "gpu-metrics",
        reason: expect.stringContaining(`The use of ${OTHER} on gpu06`),
      }),
    ]);
    expect(brief.unseen[0].reason).not.toContain("GI 13");
  });

  it("names a whole GPU as before", () => {
    const d = diagnose(diagnosisScenarios.find((s) => s.name === "gpus-unused")!.input, { now: NOW });
    expect(d.findings[0].claim).toContain("GPU 0 on gpu09, GPU 1 on gpu09");
    expect(d.findings[0].evidence[0].metric).toBe("gpus.0.utilizationPercent");
  });
});

function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
