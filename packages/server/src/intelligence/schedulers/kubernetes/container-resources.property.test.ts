import { formatQuantity, parseQuantity } from "@jobsight/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PodResource, planWrites, RESOURCE_KEYS, readAmount } from "./container-resources.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;
// The step each resource is rounded up to at most: a Mi, a millicore, a device.
const UNIT: Record<PodResource, number> = { memory: MiB, cores: 0.001, gpus: 1 };
// Float noise the formatters forgive (2.4000000000000004 cores is 2400m).
const below = (x: number) => x * (1 - 1e-12);

const SUFFIXES: Record<PodResource, string[]> = {
  memory: ["", "k", "M", "G", "Ki", "Mi", "Gi", "e6"],
  cores: ["", "m"],
  gpus: [""],
};
const quantity = (r: PodResource) =>
  fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.constantFrom(...SUFFIXES[r])).map(([n, s]) => `${n}${s}`);
// One amount spelled two ways, as a request equal to its limit may be.
const equalPair = (r: PodResource) =>
  fc.integer({ min: 1, max: 64 }).chain((n) =>
    fc.constantFrom<[string, string]>(
      ...(r === "memory"
        ? ([
            [`${n}Gi`, `${n * 1024}Mi`],
            [`${n}G`, `${n * 1000}M`],
            [`${n}Gi`, `${n * GiB}`],
            [`${n * 500}M`, `${n * 500}M`],
          ] as [string, string][])
        : r === "cores"
          ? ([
              [`${n}`, `${n * 1000}m`],
              [`${n * 250}m`, `${n * 250}m`],
            ] as [string, string][])
          : ([[`${n}`, `${n}`]] as [string, string][])),
    ),
  );

const target = (r: PodResource) =>
  r === "memory"
    ? fc.oneof(
        fc.integer({ min: 1, max: 2 ** 38 }),
        fc.double({ min: 1, max: 2 ** 38, noNaN: true }),
        fc.integer({ min: 1, max: 100_000 }).map((n) => n * 1e6),
        fc.integer({ min: 1, max: 100_000 }).map((n) => n * MiB),
      )
    : r === "cores"
      ? fc.oneof(
          fc.double({ min: 0.001, max: 256, noNaN: true }),
          fc.integer({ min: 1, max: 256_000 }).map((m) => m / 1000),
        )
      : fc.integer({ min: 1, max: 8 });

const containerArb = fc.constantFrom<PodResource>("memory", "cores", "gpus").chain((resource) =>
  fc.record({
    resource: fc.constant(resource),
    shape: fc.constantFrom("none", "request", "limit", "both", "equal"),
    a: quantity(resource),
    b: quantity(resource),
    pair: equalPair(resource),
    target: target(resource),
  }),
);

type Sections = { requests?: Record<string, string>; limits?: Record<string, string> };

type Case = { resource: PodResource; shape: string; a: string; b: string; pair: [string, string] };

function build(r: Case): { resources?: Sections } {
  const key = RESOURCE_KEYS[r.resource];
  // A valid pod: the request is not above the limit.
  const [low, high] = parseQuantity(r.a)! <= parseQuantity(r.b)! ? [r.a, r.b] : [r.b, r.a];
  if (r.shape === "none") return {};
  if (r.shape === "request") return { resources: { requests: { [key]: r.a } } };
  if (r.shape === "limit") return { resources: { limits: { [key]: r.a } } };
  if (r.shape === "both") return { resources: { requests: { [key]: low }, limits: { [key]: high } } };
  return { resources: { requests: { [key]: r.pair[0] }, limits: { [key]: r.pair[1] } } };
}

const suffixOf = (text: string) => text.replace(/^[0-9.]+/, "");

describe("planWrites properties", () => {
  it("the container gets the target rounded up by less than a unit, stays valid, keeps its pattern and the user's units", () => {
    fc.assert(
      fc.property(containerArb, (c) => {
        const container: Record<string, unknown> = build(c);
        const key = RESOURCE_KEYS[c.resource];
        const before = readAmount(container, c.resource);
        const writes = planWrites(container, c.resource, c.target);
        const after = structuredClone(container) as { resources?: Sections };
        for (const w of writes) {
          after.resources = { ...after.resources };
          const section = { ...after.resources[w.section] };
          after.resources[w.section] = section;
          const original = section[w.key];
          // Each quantity is written in the user's unit when it is whole there, or else by the rule.
          if (original !== undefined) {
            const count = parseQuantity(w.value)! / parseQuantity(`1${suffixOf(original)}`)!;
            if (Math.abs(count - Math.round(count)) <= 1e-12 * count) {
              expect(suffixOf(w.value)).toBe(suffixOf(original));
            } else expect(w.value).toBe(formatQuantity(parseQuantity(w.value)!, c.resource));
          }
          section[w.key] = w.value;
        }
        const now = readAmount(after, c.resource);
        expect(now.effective).toBeGreaterThanOrEqual(below(c.target));
        expect(now.effective! - UNIT[c.resource]).toBeLessThan(c.target);
        if (now.request !== undefined && now.limit !== undefined) {
          if (c.resource === "gpus") expect(now.request).toBe(now.limit);
          else expect(now.request).toBeLessThanOrEqual(now.limit);
        }
        if (before.request !== undefined && before.request === before.limit)
          expect(now.request).toBe(now.limit);
        if (before.limit !== undefined) expect(now.limit).toBeDefined();
        // Writing again changes nothing.
        expect(planWrites(after, c.resource, c.target)).toEqual([]);
        expect(after.resources?.requests?.[key] ?? after.resources?.limits?.[key]).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });
});
