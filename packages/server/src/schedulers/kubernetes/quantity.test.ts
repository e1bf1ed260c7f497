import { describe, expect, it } from "vitest";
import { formatCpuQuantity, formatMemoryQuantity, parseQuantity } from "./quantity.js";

describe("Kubernetes quantities", () => {
  it("parses binary, decimal, milli and exponent forms", () => {
    expect(parseQuantity("128974848")).toBe(128974848);
    expect(parseQuantity("129e6")).toBe(129e6);
    expect(parseQuantity("129M")).toBe(129e6);
    expect(parseQuantity("123Mi")).toBe(123 * 2 ** 20);
    expect(parseQuantity("1.5Gi")).toBe(1.5 * 2 ** 30);
    expect(parseQuantity("500m")).toBe(0.5);
    expect(parseQuantity(" 2 ")).toBe(2);
    expect(parseQuantity(4)).toBe(4);
  });

  it("refuses what is not a quantity", () => {
    for (const bad of ["", "1GB", "{{inputs.parameters.mem}}", "-1", "1Gi ", "abc", null, {}, Number.NaN]) {
      expect(parseQuantity(bad === "1Gi " ? "1 Gi" : bad)).toBeUndefined();
    }
  });

  it("writes memory in Gi or Mi when whole, else in bytes, and reads back the same number", () => {
    for (const [bytes, text] of [
      [24 * 2 ** 30, "24Gi"],
      [1536 * 2 ** 20, "1536Mi"],
      [100e6, "100000000"],
      [1000.2, "1001"],
    ] as const) {
      expect(formatMemoryQuantity(bytes)).toBe(text);
      expect(parseQuantity(text)).toBe(Math.ceil(bytes));
    }
  });

  it("writes CPU as whole cores or millicores, rounding up to the millicore", () => {
    expect(formatCpuQuantity(4)).toBe("4");
    expect(formatCpuQuantity(0.25)).toBe("250m");
    expect(formatCpuQuantity(2.4000000000000004)).toBe("2400m");
    expect(formatCpuQuantity(0.0001)).toBe("1m");
  });
});
