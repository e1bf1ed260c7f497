import { describe, expect, it } from "vitest";
import {
  countArrayTasks,
  formatSlurmMemory,
  formatSlurmTime,
  parseGpuCount,
  parseGresGpu,
  parseSlurmMemory,
  parseSlurmTime,
} from "./slurm-units.js";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe("SLURM memory sizes", () => {
  it.each([
    ["500", 500 * MiB],
    ["500M", 500 * MiB],
    ["500m", 500 * MiB],
    ["4G", 4 * GiB],
    ["4g", 4 * GiB],
    ["2T", 2 * 1024 * GiB],
    ["1024K", 1 * MiB],
    ["1025K", 2 * MiB],
    ["0", 0],
  ])("reads %s as sbatch does", (text, bytes) => {
    expect(parseSlurmMemory(text)).toBe(bytes);
  });

  it.each(["4GB", "1.5G", "-1", "G", "4 G", ""])("refuses %j like sbatch", (text) => {
    expect(parseSlurmMemory(text)).toBeUndefined();
  });

  it.each([
    [24 * GiB, "24G"],
    [1.5 * GiB, "1536M"],
    [100 * MiB + 1, "101M"],
    [1, "1M"],
  ])("writes %i bytes as %s", (bytes, text) => {
    expect(formatSlurmMemory(bytes)).toBe(text);
    expect(parseSlurmMemory(text)).toBeGreaterThanOrEqual(bytes);
  });
});

describe("SLURM time limits", () => {
  it.each([
    ["90", 90 * 60],
    ["10:30", 11 * 60],
    ["10:00", 10 * 60],
    ["2:30:00", 2.5 * 3600],
    ["02:30:15", 2.5 * 3600 + 60],
    ["1-12", 36 * 3600],
    ["1-12:30", 36 * 3600 + 1800],
    ["7-00:00:00", 7 * 86400],
    ["0-00:05:00", 300],
  ])("reads %s in every sbatch format", (text, seconds) => {
    expect(parseSlurmTime(text)).toBe(seconds);
  });

  it.each(["UNLIMITED", "infinite", "-1", "0", "0:00"])("reads %s as no limit", (text) => {
    expect(parseSlurmTime(text)).toBe("unlimited");
  });

  it.each(["1:2:3:4", "abc", "1-", "1-2-3", "1h", ""])("refuses %j", (text) => {
    expect(parseSlurmTime(text)).toBeUndefined();
  });

  it.each([
    [5400, "01:30:00"],
    [59, "00:01:00"],
    [86_400, "1-00:00:00"],
    [131_400, "1-12:30:00"],
    [10 * 86_400 + 61, "10-00:02:00"],
  ])("writes %i s as %s, and reads it back", (seconds, text) => {
    expect(formatSlurmTime(seconds)).toBe(text);
    expect(parseSlurmTime(text)).toBe(Math.ceil(seconds / 60) * 60);
  });
});

describe("GPU and array options", () => {
  it.each([
    ["gpu", { count: 1 }],
    ["gpu:2", { count: 2 }],
    ["gpu:a100:4", { type: "a100", count: 4 }],
    ["gpu:a100", { type: "a100", count: 1 }],
    ["gres/gpu:2", { count: 2 }],
    ["shard:1,gpu:v100:2", { type: "v100", count: 2 }],
    ["gpu:2(S:0-1)", { count: 2 }],
  ])("reads --gres=%s", (text, expected) => {
    expect(parseGresGpu(text)).toEqual(expected);
  });

  it("finds no GPU in a --gres without one", () => {
    expect(parseGresGpu("shard:2,bandwidth:10")).toBeUndefined();
  });

  it.each([
    ["2", { count: 2 }],
    ["a100:2", { type: "a100", count: 2 }],
    ["a100:1,v100:2", { type: "v100", count: 3 }],
  ])("reads --gpus=%s", (text, expected) => {
    expect(parseGpuCount(text)).toEqual(expected);
  });

  it.each([
    ["0-15", 16],
    ["1,3,5,7", 4],
    ["0-15:4", 4],
    ["1-7%2", 7],
    ["0-9,20-29:5", 12],
    ["5-1", undefined],
    ["x", undefined],
  ])("counts --array=%s as %s tasks", (text, count) => {
    expect(countArrayTasks(text)).toBe(count);
  });
});
