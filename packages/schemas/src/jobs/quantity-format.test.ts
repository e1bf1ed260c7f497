import { describe, expect, it } from "vitest";
import { parseQuantity } from "./quantity.js";
import {
  cpuStepOf,
  formatCpuQuantity,
  formatMemoryQuantity,
  formatQuantity,
  formatQuantityLike,
} from "./quantity-format.js";

const KiB = 2 ** 10;
const MiB = 2 ** 20;
const GiB = 2 ** 30;

// Properties over random amounts are in the SDK (packages/sdk/src/submissions/kubernetes/
// quantity.property.test.ts): fast-check is not a dependency of this package.
describe("formatMemoryQuantity", () => {
  it.each([
    [24 * GiB, "24Gi"],
    [1.5 * GiB, "1536Mi"],
    [1536 * MiB, "1536Mi"],
    [2 * 2 ** 40, "2Ti"],
    [1025 * KiB, "1025Ki"],
    [KiB, "1Ki"],
    [0, "0"],
  ])("writes %d bytes as %j, exactly", (bytes, text) => {
    expect(formatMemoryQuantity(bytes)).toBe(text);
    expect(parseQuantity(text)).toBe(bytes);
  });

  it.each([
    [MiB + 1, "2Mi"],
    [100e6, "96Mi"],
    [1000.2, "1Mi"],
    [0.5, "1Mi"],
    [GiB - 1, "1Gi"],
    [MiB + 0.5, "2Mi"],
  ])("rounds %d bytes up to a whole Mi: %j", (bytes, text) => {
    expect(formatMemoryQuantity(bytes)).toBe(text);
  });

  it("takes float noise for the whole number it should have been", () => {
    expect(formatMemoryQuantity(GiB * (1 + Number.EPSILON))).toBe("1Gi");
  });
});

describe("large amounts", () => {
  // A property test found these: a relative tolerance of 1e-12 took a byte for float noise.
  it("never writes a byte below the value, nor more than the rule in the user's unit", () => {
    const x = 17_490_080_956_417; // 16679841 MiB and one byte
    expect(formatMemoryQuantity(x)).toBe("16679842Mi");
    expect(formatQuantityLike("1k", x, "memory")).toBe("16679842Mi");
  });
});

describe("formatCpuQuantity", () => {
  it.each([
    [4, "4"],
    [32, "32"],
    [0, "0"],
    [0.25, "250m"],
    [1.5, "1500m"],
    [3.75, "3750m"],
    [32.38, "32380m"],
    [2.4000000000000004, "2400m"],
    [0.0001, "1m"],
    [0.0010004, "2m"],
    [1e-10, "1m"],
  ])("writes %d cores as %j", (cores, text) => {
    expect(formatCpuQuantity(cores)).toBe(text);
  });
});

describe("formatQuantity", () => {
  it("writes each kind by its rules, GPUs as whole devices rounded up", () => {
    expect(formatQuantity(3 * GiB, "memory")).toBe("3Gi");
    expect(formatQuantity(0.75, "cores")).toBe("750m");
    expect(formatQuantity(2, "gpus")).toBe("2");
    expect(formatQuantity(1.2, "gpus")).toBe("2");
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("refuses %d", (bad) => {
    expect(() => formatQuantity(bad, "memory")).toThrow(RangeError);
    expect(() => formatQuantity(bad, "cores")).toThrow(RangeError);
    expect(() => formatQuantity(bad, "gpus")).toThrow(RangeError);
    expect(() => formatQuantityLike("1Gi", bad, "memory")).toThrow(RangeError);
  });
});

describe("formatQuantityLike", () => {
  it.each([
    ["2", 3, "cores", "3"],
    [2, 3, "cores", "3"],
    ["500m", 2, "cores", "2000m"],
    ["0.5", 3, "cores", "3"],
    ["4Gi", 6 * GiB, "memory", "6Gi"],
    ["1024Mi", 2 * GiB, "memory", "2048Mi"],
    ["500M", 600e6, "memory", "600M"],
    ["129e6", 130e6, "memory", "130e6"],
    ["1E3", 2000, "memory", "2E3"],
    [" 4Gi ", 6 * GiB, "memory", "6Gi"],
    ["1073741824", 2 * GiB, "memory", "2147483648"],
    ["2", 3, "gpus", "3"],
  ] as const)("writes like %j: %d %s as %j", (original, value, kind, text) => {
    expect(formatQuantityLike(original, value, kind)).toBe(text);
    expect(parseQuantity(text)).toBe(value);
  });

  it.each([
    ["2", 1.5, "cores", "1500m"],
    ["4Gi", 6.5 * GiB, "memory", "6656Mi"],
    ["4G", 6e9 + 1, "memory", "5723Mi"],
    ["4Gi", 0, "memory", "0"],
    ["4Gi", 6.5 * GiB + 1, "memory", "6657Mi"],
    ["{{inputs.parameters.mem}}", 3 * GiB, "memory", "3Gi"],
    [undefined, 1.5, "cores", "1500m"],
    [null, 2, "gpus", "2"],
  ] as const)("falls back to the rule when %j cannot carry %d %s: %j", (original, value, kind, text) => {
    expect(formatQuantityLike(original, value, kind)).toBe(text);
  });

  it.each([
    ["1Ki", 1e6, "memory", "1024Ki"],
    ["1", 1000.2, "memory", "1048576"],
    ["1000m", 1.0004, "cores", "1001m"],
    ["1000000000n", 1.0000005, "cores", "1001000000n"],
  ] as const)(
    "writes the rule's amount in the unit of %j when it is whole there: %d %s as %j",
    (original, value, kind, text) => {
      expect(formatQuantityLike(original, value, kind)).toBe(text);
      expect(parseQuantity(text)).toBe(parseQuantity(formatQuantity(value, kind)));
    },
  );
});

describe("cpuStepOf", () => {
  it("reads the step a CPU amount was written in", () => {
    expect(cpuStepOf(32)).toBe(1);
    expect(cpuStepOf(parseQuantity("2000m"))).toBe(1);
    expect(cpuStepOf(1.5)).toBe(0.1);
    expect(cpuStepOf(parseQuantity("250m"))).toBe(0.01);
    expect(cpuStepOf(parseQuantity("1234m"))).toBe(0.001);
    expect(cpuStepOf(0.1 + 0.2)).toBe(0.1);
    for (const none of [undefined, 0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(cpuStepOf(none)).toBe(0.001);
  });
});
