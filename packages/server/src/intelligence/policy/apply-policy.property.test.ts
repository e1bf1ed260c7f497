import type { JobSpec, Policy, ResourceName, ResourcePrediction } from "@jobsight/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AppliedResource, applyPolicy } from "./apply-policy.js";
import { boundsOf, RESOURCE_NAMES } from "./policy-bounds.js";

// Scales per resource so that values, floors and caps land in the same ranges.
const SCALE: Record<ResourceName, { max: number; integer: boolean }> = {
  memory: { max: 2 ** 40, integer: true },
  gpuMemory: { max: 2 ** 37, integer: true },
  cores: { max: 256, integer: false },
  gpus: { max: 16, integer: true },
  walltime: { max: 14 * 86400, integer: true },
};

const amount = (r: ResourceName) =>
  SCALE[r].integer
    ? fc.integer({ min: 0, max: SCALE[r].max })
    : fc.double({ min: 0, max: SCALE[r].max, noNaN: true, noDefaultInfinity: true });

const subset = fc.subarray([...RESOURCE_NAMES]);

// Floors never above caps (checkPolicy rejects those): a cap is drawn as floor + something.
const floorAndCap = (r: ResourceName) =>
  fc.record({
    floor: fc.option(amount(r), { nil: undefined }),
    extra: fc.option(amount(r), { nil: undefined }),
  });

type Case = { policy: Policy; spec: JobSpec; prediction: ResourcePrediction; coresStep: number };

const caseFor = (r: ResourceName): fc.Arbitrary<Case> =>
  fc
    .record({
      requested: fc.option(amount(r), { nil: undefined }),
      recommended: amount(r),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      insufficient: fc.boolean(),
      global: floorAndCap(r),
      partition: floorAndCap(r),
      nodeExtra: fc.option(amount(r), { nil: undefined }),
      maxDecrease: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      maxIncrease: fc.option(fc.double({ min: 0, max: 4, noNaN: true }), { nil: undefined }),
      minConfidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      neverLower: subset,
      leaveAlone: subset,
      optOut: fc.boolean(),
      coresStep: fc.constantFrom(1, 0.001, 0.25),
    })
    .map((c) => {
      const floors = [c.global.floor, c.partition.floor].filter((f): f is number => f !== undefined);
      const top = floors.length > 0 ? Math.max(...floors) : 0;
      const cap = (extra: number | undefined) => (extra === undefined ? undefined : top + extra);
      const policy: Policy = {
        name: "prop",
        floors: c.global.floor === undefined ? {} : { [r]: c.global.floor },
        caps: cap(c.global.extra) === undefined ? {} : { [r]: cap(c.global.extra) },
        partitions: [
          {
            partition: "batch",
            floors: c.partition.floor === undefined ? {} : { [r]: c.partition.floor },
            caps: cap(c.partition.extra) === undefined ? {} : { [r]: cap(c.partition.extra) },
            nodeCapacity: cap(c.nodeExtra) === undefined ? {} : { [r]: cap(c.nodeExtra) },
          },
        ],
        neverLower: c.neverLower,
        leaveAlone: c.leaveAlone,
        optOutUsers: c.optOut ? ["alice"] : ["bob"],
      };
      if (c.maxDecrease !== undefined) policy.maxDecrease = { [r]: c.maxDecrease };
      if (c.maxIncrease !== undefined) policy.maxIncrease = { [r]: c.maxIncrease };
      if (c.minConfidence !== undefined) policy.minConfidence = c.minConfidence;
      const field = {
        memory: "memoryBytes",
        cores: "cores",
        gpus: "gpus",
        gpuMemory: "gpuMemoryBytes",
        walltime: "walltimeSeconds",
      }[r];
      const requested: JobSpec["requested"] = {};
      if (
        c.requested !== undefined &&
        !(r === "cores" && c.requested === 0) &&
        !(r === "walltime" && c.requested === 0)
      ) {
        (requested as Record<string, number>)[field] = c.requested;
      }
      const spec: JobSpec = {
        cluster: "hpc1",
        scheduler: "slurm",
        user: "alice",
        partition: "batch",
        requested,
      };
      const prediction: ResourcePrediction = c.insufficient
        ? { resource: r, status: "insufficient_evidence", reasonCode: "too_uncertain", reason: "wide" }
        : {
            resource: r,
            status: "ok",
            unit: "bytes",
            value: c.recommended,
            confidence: c.confidence,
            evidence: { group: "g", jobs: 9 },
          };
      return { policy, spec, prediction, coresStep: c.coresStep };
    });

const anyCase = fc.constantFrom(...RESOURCE_NAMES).chain(caseFor);

const decide = (c: Case, prediction = c.prediction): AppliedResource =>
  applyPolicy([prediction], c.spec, c.policy, { coresGranularity: c.coresStep }).resources[0];

// Relative tolerance for values that went through a multiplication (request × (1 − maxDecrease)).
const atLeast = (value: number, bound: number) => value >= bound - Math.abs(bound) * 1e-9 - 1e-9;
const atMost = (value: number, bound: number) => value <= bound + Math.abs(bound) * 1e-9 + 1e-9;

const RUNS = { numRuns: 1000 };

describe("applyPolicy properties", () => {
  it("never goes below the floors nor above the caps and node capacity (other than the job's own request)", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const r = decide(c);
        if (r.held || r.value === undefined) return;
        const bounds = boundsOf(c.policy, c.spec, r.resource);
        if (bounds.floor !== undefined) expect(atLeast(r.value, bounds.floor)).toBe(true);
        for (const limit of bounds.limits)
          expect(atMost(r.value, Math.max(limit.value, r.requested ?? 0))).toBe(true);
      }),
      RUNS,
    );
  });

  it("never lowers a resource listed in neverLower", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const r = decide(c);
        if (c.policy.neverLower?.includes(r.resource) && r.requested !== undefined) {
          expect(r.value).toBeDefined();
          expect(r.value!).toBeGreaterThanOrEqual(r.requested);
        }
      }),
      RUNS,
    );
  });

  it("never changes anything for a user who opted out", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        if (!c.policy.optOutUsers?.includes(c.spec.user)) return;
        const r = decide(c);
        expect(r.changed).toBe(false);
        expect(r.value).toBe(r.requested);
      }),
      RUNS,
    );
  });

  it("never decreases by more than maxDecrease of the request", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const r = decide(c);
        const d = c.policy.maxDecrease?.[r.resource];
        if (d === undefined || r.requested === undefined || r.value === undefined) return;
        expect(atLeast(r.value, r.requested * (1 - d))).toBe(true);
      }),
      RUNS,
    );
  });

  it("keeps the request when confidence is below minConfidence", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const p = c.prediction;
        if (
          p.status !== "ok" ||
          c.policy.minConfidence === undefined ||
          p.confidence >= c.policy.minConfidence
        )
          return;
        const r = decide(c);
        expect(r.changed).toBe(false);
        expect(r.value).toBe(r.requested);
      }),
      RUNS,
    );
  });

  it("is idempotent: its own value, as the recommendation, comes back unchanged", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const first = decide(c);
        if (first.held || first.value === undefined || c.prediction.status !== "ok") return;
        const again = decide(c, { ...c.prediction, value: first.value });
        expect(again.value).toBe(first.value);
      }),
      RUNS,
    );
  });

  it("gives a whole number of GPUs, minutes and MiB whenever it changes them", () => {
    fc.assert(
      fc.property(anyCase, (c) => {
        const r = decide(c);
        if (!r.changed || r.value === undefined || r.adjustments.at(-1)?.rule !== "rounding") return;
        const step = { memory: 2 ** 20, gpuMemory: 2 ** 20, gpus: 1, walltime: 60, cores: c.coresStep }[
          r.resource
        ];
        const q = r.value / step;
        expect(Math.abs(q - Math.round(q))).toBeLessThan(1e-6);
      }),
      RUNS,
    );
  });
});
