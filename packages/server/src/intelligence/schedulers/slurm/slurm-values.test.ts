import { describe, expect, it } from "vitest";
import {
  describeMinutes,
  gpuCount,
  parseGres,
  parseSlurmMemoryMb,
  parseSlurmTimeMinutes,
  withGpuCount,
} from "./slurm-values.js";

describe("SLURM option strings", () => {
  it("reads memory as --mem takes it and mbytes_to_str writes it", () => {
    expect(parseSlurmMemoryMb("500")).toBe(500);
    expect(parseSlurmMemoryMb("2G")).toBe(2048);
    expect(parseSlurmMemoryMb("1T")).toBe(1024 * 1024);
    expect(parseSlurmMemoryMb("1536M")).toBe(1536);
    expect(parseSlurmMemoryMb("100K")).toBe(1);
    expect(parseSlurmMemoryMb("2gb")).toBe(2048);
    for (const bad of ["", "G", "-1", "2X", "1 G"]) expect(parseSlurmMemoryMb(bad)).toBeUndefined();
  });

  it("reads every --time form, rounding seconds up to the minute, and refuses UNLIMITED", () => {
    expect(parseSlurmTimeMinutes("60")).toBe(60);
    expect(parseSlurmTimeMinutes("01:00:00")).toBe(60);
    expect(parseSlurmTimeMinutes("10:30")).toBe(11);
    expect(parseSlurmTimeMinutes("2-00")).toBe(2880);
    expect(parseSlurmTimeMinutes("1-02:30")).toBe(1590);
    expect(parseSlurmTimeMinutes("1-02:30:01")).toBe(1591);
    for (const bad of ["UNLIMITED", "INFINITE", "", "1:2:3:4", "abc"])
      expect(parseSlurmTimeMinutes(bad)).toBeUndefined();
    expect(describeMinutes(1590)).toBe("1-02:30:00");
    expect(describeMinutes(90)).toBe("01:30:00");
  });

  it("reads GRES lists in the forms users and job_submit use, and rewrites only the GPU count", () => {
    const list = parseGres("gres/gpu:a100:2,gres/nvme:1")!;
    expect(gpuCount(list)).toBe(2);
    expect(withGpuCount(list, 1)).toBe("gpu:a100:1,nvme:1");
    expect(gpuCount(parseGres("gres:gpu:4")!)).toBe(4);
    expect(gpuCount(parseGres("gpu")!)).toBe(1);
    expect(gpuCount(parseGres("nvme:2")!)).toBe(0);
    const gpus = parseGres("a100:4", "gpu")!;
    expect(gpuCount(gpus)).toBe(4);
    expect(withGpuCount(gpus, 2, "gpu")).toBe("a100:2");
    expect(withGpuCount(parseGres("3", "gpu")!, 1, "gpu")).toBe("1");
    expect(parseGres("gpu:a:b:2")).toBeUndefined();
    expect(parseGres("gpu:2,")).toBeUndefined();
  });
});
