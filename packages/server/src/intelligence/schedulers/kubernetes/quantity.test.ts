import { parseQuantity } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { formatCpuQuantity, formatMemoryQuantity } from "./quantity.js";

describe("Kubernetes quantities", () => {
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
