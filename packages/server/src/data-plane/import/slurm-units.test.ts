import { describe, expect, it } from "vitest";
import {
  expandHostlist,
  parseSlurmDuration,
  parseSlurmMemory,
  parseSlurmTime,
  parseTres,
} from "./slurm-units.js";

describe("SLURM units", () => {
  it("parses durations in every sacct form", () => {
    expect(parseSlurmDuration("1-02:00:00")).toBe(93_600);
    expect(parseSlurmDuration("01:00:05")).toBe(3605);
    expect(parseSlurmDuration("05:30")).toBe(330);
    expect(parseSlurmDuration("00:01.250")).toBeCloseTo(1.25);
    expect(parseSlurmDuration("UNLIMITED")).toBeUndefined();
    expect(parseSlurmDuration("Partition_Limit")).toBeUndefined();
  });

  it("parses memory sizes with units and per-CPU/per-node suffixes", () => {
    expect(parseSlurmMemory("115204K")).toEqual({ bytes: 115_204 * 1024 });
    expect(parseSlurmMemory("1.50G")).toEqual({ bytes: 1.5 * 2 ** 30 });
    expect(parseSlurmMemory("4000Mc")).toEqual({ bytes: 4000 * 2 ** 20, per: "cpu" });
    expect(parseSlurmMemory("2Gn")).toEqual({ bytes: 2 * 2 ** 30, per: "node" });
    expect(parseSlurmMemory("100")).toEqual({ bytes: 100 * 2 ** 20 });
    expect(parseSlurmMemory("")).toBeUndefined();
  });

  it("parses TRES lists, GPUs of any model counting as GPUs", () => {
    const tres = parseTres("billing=4,cpu=4,gres/gpu:a100=2,mem=2G,node=1");
    expect(Object.fromEntries(tres)).toEqual({
      billing: 4,
      cpu: 4,
      "gres/gpu": 2,
      mem: 2 * 2 ** 30,
      node: 1,
    });
  });

  it("expands host lists", () => {
    expect(expandHostlist("node[01-03,07],gpu1")).toEqual(["node01", "node02", "node03", "node07", "gpu1"]);
    expect(expandHostlist("None assigned")).toEqual([]);
    expect(expandHostlist("n[1-100000]", 5)).toHaveLength(5);
  });

  it("reads local timestamps in the cluster's time zone, DST included", () => {
    expect(parseSlurmTime("2026-12-01T10:00:00")).toBe(Date.UTC(2026, 11, 1, 10) / 1000);
    expect(parseSlurmTime("2026-12-01T10:00:00", "Europe/Paris")).toBe(Date.UTC(2026, 11, 1, 9) / 1000);
    expect(parseSlurmTime("2026-07-01T10:00:00", "Europe/Paris")).toBe(Date.UTC(2026, 6, 1, 8) / 1000);
    expect(parseSlurmTime("Unknown")).toBeUndefined();
  });
});
