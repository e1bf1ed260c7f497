import type { JobSpec, Policy, ResourceName } from "@jobsight/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RawOutcome } from "./predictor.js";
import { granularityFor, toWireResource, withPolicy } from "./wire-prediction.js";

const RESOURCES: ResourceName[] = ["memory", "cores", "walltime"];
const GIB = 2 ** 30;
const scale: Record<string, number> = { memory: 64 * GIB, cores: 128, walltime: 7 * 86_400 };

/** A model outcome as the predictor makes it: low ≤ value = high, or no recommendation. */
const outcome = (resource: ResourceName) =>
  fc.oneof(
    fc
      .record({
        value: fc.double({ min: 1e-6, max: 1, noNaN: true }),
        lowShare: fc.double({ min: 0, max: 1, noNaN: true }),
        confidence: fc.double({ min: 0, max: 1, noNaN: true }),
        basis: fc.constantFrom("model" as const, "request" as const),
      })
      .map(({ value, lowShare, confidence, basis }): RawOutcome => {
        const v = value * scale[resource];
        return {
          resource,
          prediction: {
            status: "ok",
            value: v,
            low: v * lowShare,
            high: v,
            nominalLevel: 0.982,
            confidence,
            basis,
            evidence: { group: "user=u", jobs: 5, censoredJobs: 0, features: [] },
          },
        };
      }),
    fc.constant<RawOutcome>({
      resource,
      prediction: { status: "insufficient_evidence", reasonCode: "no_model", reason: "none" },
    }),
  );

const fraction = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
const amount = (resource: ResourceName) =>
  fc.option(fc.double({ min: 0, max: scale[resource], noNaN: true }), { nil: undefined });

const policy: fc.Arbitrary<Policy> = fc
  .record({
    floorMem: amount("memory"),
    capMem: amount("memory"),
    capCores: amount("cores"),
    capWall: amount("walltime"),
    floorWall: amount("walltime"),
    maxDecrease: fraction,
    neverLower: fc.subarray(RESOURCES),
    minConfidence: fraction,
  })
  .map((p) => {
    const out: Policy = { name: "p", neverLower: p.neverLower };
    out.floors = { memory: p.floorMem, walltime: p.floorWall };
    out.caps = { memory: p.capMem, cores: p.capCores, walltime: p.capWall };
    if (p.maxDecrease !== undefined) out.maxDecrease = { memory: p.maxDecrease, walltime: p.maxDecrease };
    if (p.minConfidence !== undefined) out.minConfidence = p.minConfidence;
    return JSON.parse(JSON.stringify(out)) as Policy;
  });

const spec = (scheduler: JobSpec["scheduler"]) =>
  fc
    .record({
      memory: fc.integer({ min: 1, max: 64 * 1024 }),
      cores: fc.integer({ min: 1, max: 128 }),
      walltime: fc.integer({ min: 1, max: 7 * 1440 }),
    })
    .map(
      (r): JobSpec => ({
        cluster: "c",
        scheduler,
        user: "u",
        requested: { memoryBytes: r.memory * 2 ** 20, cores: r.cores, walltimeSeconds: r.walltime * 60 },
      }),
    );

describe("advice as the wire says it, under any policy", () => {
  it("keeps every recommended value inside its range, rounded the way the scheduler takes it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("slurm" as const, "kubernetes" as const).chain(spec),
        fc.tuple(...RESOURCES.map(outcome)),
        policy,
        fc.constantFrom("live" as const, "shadow" as const),
        (job, raws, p, mode) => {
          const g = granularityFor(job);
          const wire = raws.map((r) => toWireResource(r, job, g));
          const out = withPolicy(
            wire,
            job,
            p,
            mode,
            job.scheduler === "kubernetes" ? { coresGranularity: 0.001 } : {},
          );
          out.forEach((r, k) => {
            if (r.status !== "ok") {
              // Insufficient evidence is never given a value.
              expect(raws[k].prediction.status).not.toBe("ok");
              expect(r).not.toHaveProperty("value");
              return;
            }
            expect(r.low).toBeLessThanOrEqual(r.value);
            expect(r.value).toBeLessThanOrEqual(r.high as number);
            expect(r.confidence).toBeGreaterThanOrEqual(0);
            expect(r.confidence).toBeLessThanOrEqual(1);
            const step = g[r.resource];
            const steps = r.value / step;
            const bounds = [p.floors?.[r.resource], p.caps?.[r.resource]];
            // Unrounded only when pinned at a floor and a cap with no multiple of the step between them.
            const offStep = Math.abs(steps - Math.round(steps)) >= 1e-6;
            if (offStep) expect(bounds).toContain(r.value);
            expect(r.value).toBeGreaterThanOrEqual(step);
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
