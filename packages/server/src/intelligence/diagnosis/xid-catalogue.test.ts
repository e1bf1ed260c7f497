import { describe, expect, it } from "vitest";
import { normalisePciBusId, xidInfo } from "./xid-catalogue.js";

describe("xid catalogue", () => {
  it("splits application errors from hardware and driver faults", () => {
    for (const code of [13, 31, 43]) expect(xidInfo(code)?.class).toBe("application");
    for (const code of [48, 63, 64, 74, 79, 92, 94, 95, 119, 120])
      expect(xidInfo(code)?.class).toBe("hardware");
    expect(xidInfo(45)?.class).toBe("follow-on");
    expect(xidInfo(999)).toBeUndefined();
  });

  it("compares the kernel's and nvidia-smi's PCI addresses", () => {
    expect(normalisePciBusId("0000:3b:00")).toBe("0000:3b:00");
    expect(normalisePciBusId("PCI:0000:3b:00")).toBe("0000:3b:00");
    expect(normalisePciBusId("00000000:3B:00.0")).toBe("0000:3b:00");
    expect(normalisePciBusId("not a bus id")).toBeUndefined();
  });
});
