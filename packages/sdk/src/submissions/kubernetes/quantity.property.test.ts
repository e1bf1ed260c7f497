// Properties of the Kubernetes quantity functions of @jobsight/schemas, which the manifest editing
// here writes with and the SDK re-exports. They live in this package because fast-check is one of
// its dependencies and not of @jobsight/schemas (whose example tests are in jobs/quantity-format.test.ts).
import {
  formatCpuQuantity,
  formatMemoryQuantity,
  formatQuantity,
  formatQuantityLike,
  parseQuantity,
  type QuantityKind,
} from "@jobsight/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const MiB = 2 ** 20;
// What float arithmetic may take away from an amount: the formatters read a count within 1e-14
// of a whole number, relatively, as that number (2.4000000000000004 cores is 2400m).
const below = (x: number) => x * (1 - 1e-12);

const bytes = fc.oneof(
  fc.double({ min: 0, max: 2 ** 45, noNaN: true }),
  fc.integer({ min: 0, max: 2 ** 45 }),
  fc.integer({ min: 0, max: 2 ** 25 }).map((k) => k * 1024),
);
const cores = fc.oneof(
  fc.double({ min: 0, max: 1e5, noNaN: true }),
  fc.integer({ min: 0, max: 1e8 }).map((m) => m / 1000),
  fc.integer({ min: 0, max: 1e5 }),
);
const devices = fc.oneof(fc.double({ min: 0, max: 64, noNaN: true }), fc.integer({ min: 0, max: 64 }));
const kindAndValue = fc.oneof(
  bytes.map((v) => ["memory", v] as const),
  cores.map((v) => ["cores", v] as const),
  devices.map((v) => ["gpus", v] as const),
);
// The step each kind is rounded up to at most: a Mi, a millicore, a device.
const UNIT: Record<QuantityKind, number> = { memory: MiB, cores: 0.001, gpus: 1 };

// Quantities as users write them: a whole number in one of the units Kubernetes reads.
const SUFFIXES: Record<QuantityKind, string[]> = {
  memory: ["", "k", "M", "G", "Ki", "Mi", "Gi", "Ti", "e3", "e6"],
  cores: ["", "m"],
  gpus: [""],
};
const written = (kind: QuantityKind) =>
  fc
    .tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(...SUFFIXES[kind]))
    .map(([n, suffix]) => `${n}${suffix}`);

describe("Kubernetes quantity properties", () => {
  it("formatQuantity never writes less than the value, nor a whole unit more", () => {
    fc.assert(
      fc.property(kindAndValue, ([kind, x]) => {
        const back = parseQuantity(formatQuantity(x, kind))!;
        expect(back).toBeGreaterThanOrEqual(below(x));
        expect(back - UNIT[kind]).toBeLessThan(x);
      }),
      { numRuns: 2000 },
    );
  });

  it("memory is whole bytes in the largest binary suffix that divides them", () => {
    fc.assert(
      fc.property(bytes, (x) => {
        const text = formatMemoryQuantity(x);
        const m = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(text);
        expect(m).not.toBeNull();
        const [, n, suffix] = m!;
        if (suffix === undefined) expect(text).toBe("0");
        else if (suffix !== "Ti") expect(Number(n) % 1024).not.toBe(0);
      }),
    );
  });

  it("CPU is whole cores when it can be, else millicores", () => {
    fc.assert(
      fc.property(cores, (x) => {
        const text = formatCpuQuantity(x);
        expect(text).toMatch(/^\d+m?$/);
        if (text.endsWith("m")) expect(Number(text.slice(0, -1)) % 1000).not.toBe(0);
      }),
    );
  });

  it("values the rule writes exactly come back unchanged", () => {
    const exact = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 35 }).map((k) => ["memory", k * 1024] as const),
      fc.integer({ min: 0, max: 1e8 }).map((m) => ["cores", m / 1000] as const),
      fc.integer({ min: 0, max: 64 }).map((n) => ["gpus", n] as const),
    );
    fc.assert(
      fc.property(exact, ([kind, x]) => {
        expect(parseQuantity(formatQuantity(x, kind))).toBe(x);
      }),
    );
  });

  it("formatQuantityLike gives back what the user wrote for the value it reads as", () => {
    const kind = fc.constantFrom<QuantityKind>("memory", "cores", "gpus");
    fc.assert(
      fc.property(
        kind.chain((k) => fc.tuple(fc.constant(k), written(k))),
        ([k, original]) => {
          expect(formatQuantityLike(original, parseQuantity(original)!, k)).toBe(original);
        },
      ),
    );
  });

  it("formatQuantityLike writes a value whole in the user's unit in that unit, exactly", () => {
    const likeAndNew = fc.constantFrom<QuantityKind>("memory", "cores", "gpus").chain((kind) =>
      fc.record({
        kind: fc.constant(kind),
        suffix: fc.constantFrom(...SUFFIXES[kind]),
        was: fc.integer({ min: 1, max: 100_000 }),
        now: fc.integer({ min: 1, max: 100_000 }),
      }),
    );
    fc.assert(
      fc.property(likeAndNew, ({ kind, suffix, was, now }) => {
        const text = `${now}${suffix}`;
        expect(formatQuantityLike(`${was}${suffix}`, parseQuantity(text)!, kind)).toBe(text);
      }),
    );
  });

  it("formatQuantityLike keeps the rule's bounds whatever the original", () => {
    const original = fc.oneof(
      fc.constantFrom<unknown>(undefined, null, "{{inputs.parameters.mem}}", "1.5Gi", "0.5", "100n", 4),
      fc.constantFrom<QuantityKind>("memory", "cores").chain(written),
    );
    fc.assert(
      fc.property(original, kindAndValue, (o, [kind, x]) => {
        const text = formatQuantityLike(o, x, kind);
        const back = parseQuantity(text)!;
        expect(back).toBeGreaterThanOrEqual(below(x));
        expect(back - UNIT[kind]).toBeLessThan(x);
        // Never more than the rule would write: the user's unit is only taken when it is exact.
        expect(back).toBeLessThanOrEqual(parseQuantity(formatQuantity(x, kind))!);
      }),
      { numRuns: 2000 },
    );
  });
});
