import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { gpuDeviceKey, gpuDeviceLabel, gpuDevices, gpuDevicesLabel } from "./gpu-device.js";
import { gpuMetric, readMetric } from "./metric-paths.js";

const reading = (index: number, util: number, gpuInstanceId?: number, profile?: string) => ({
  index,
  utilizationPercent: util,
  memoryUsedBytes: 0,
  ...(gpuInstanceId !== undefined ? { mig: { gpuInstanceId, ...(profile ? { profile } : {}) } } : {}),
});
const sample = (gpus: UsageSample["gpus"]): UsageSample => ({
  cluster: "hpc1",
  jobId: "1",
  node: "n1",
  time: "2026-12-01T00:00:00Z",
  gpus,
});

describe("gpu devices", () => {
  it("keys and names a whole GPU by its index and a MIG instance by its index and instance id", () => {
    expect(gpuDeviceKey(reading(1, 0))).toBe("1");
    expect(gpuDeviceKey(reading(1, 0, 13))).toBe("1/gi13");
    expect(gpuDeviceLabel(reading(1, 0))).toBe("GPU 1");
    expect(gpuDeviceLabel(reading(1, 0, 13, "1g.5gb"))).toBe("GPU 1 MIG 1g.5gb (GI 13)");
    expect(gpuDeviceLabel(reading(1, 0, 13))).toBe("GPU 1 MIG (GI 13)");
  });

  it("lists each instance of a GPU apart, by index then instance", () => {
    const s = [sample([reading(1, 5, 14, "1g.5gb"), reading(0, 1)]), sample([reading(1, 9, 13, "1g.5gb")])];
    const devices = gpuDevices(s);
    expect(devices.map((d) => d.key)).toEqual(["0", "1/gi13", "1/gi14"]);
    expect(gpuDevicesLabel(devices)).toBe("GPU 0, GPU 1 MIG 1g.5gb (GI 13), GPU 1 MIG 1g.5gb (GI 14)");
    expect(gpuDevicesLabel(gpuDevices([sample([reading(0, 1), reading(1, 1)])]))).toBe("GPUs 0, 1");
  });

  it("reads each instance's metric from its own reading", () => {
    const s = sample([reading(1, 90, 13), reading(1, 0, 14)]);
    expect(readMetric(s, gpuMetric(reading(1, 0, 14), "utilizationPercent"))).toBe(0);
    expect(readMetric(s, "gpus.1/gi13.utilizationPercent")).toBe(90);
    expect(readMetric(s, "gpus.1.utilizationPercent")).toBeUndefined();
    expect(readMetric(sample([reading(1, 42)]), "gpus.1.utilizationPercent")).toBe(42);
  });
});
