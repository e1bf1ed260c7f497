import { describe, expect, it } from "vitest";
import { formatCpuQuantity, formatMemoryQuantity, parseQuantity } from "./quantity.js";

describe("Kubernetes quantities", () => {
  it.each([
    ["128974848", 128974848],
    ["129e6", 129e6],
    ["129M", 129e6],
    ["123Mi", 123 * 2 ** 20],
    ["1Gi", 2 ** 30],
    ["1G", 1e9],
    ["1k", 1000],
    ["1Ki", 1024],
    ["2Ti", 2 * 2 ** 40],
    ["500m", 0.5],
    ["1.5", 1.5],
    ["0.5Gi", 2 ** 29],
    [".5", 0.5],
    [4, 4],
  ])("reads %j", (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 9);
  });

  it.each(["1GB", "1gi", "abc", "{{inputs.parameters.mem}}", "1 Gi", "-1Gi", ""])("refuses %j", (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });

  it("writes memory in Gi when whole, else in Mi rounded up", () => {
    expect(formatMemoryQuantity(24 * 2 ** 30)).toBe("24Gi");
    expect(formatMemoryQuantity(1.5 * 2 ** 30)).toBe("1536Mi");
    expect(formatMemoryQuantity(2 ** 20 + 1)).toBe("2Mi");
  });

  it("writes CPU as whole cores or millicores", () => {
    expect(formatCpuQuantity(4)).toBe("4");
    expect(formatCpuQuantity(0.25)).toBe("250m");
    expect(formatCpuQuantity(3.75)).toBe("3750m");
    expect(formatCpuQuantity(32.38)).toBe("32380m");
    expect(formatCpuQuantity(0.0001)).toBe("1m");
  });
});
