import { describe, expect, it } from "vitest";
import { formatCpuQuantity, formatMemoryQuantity } from "./quantity.js";

describe("Kubernetes quantities", () => {
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
