import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAmdSmiList, parseAmdSmiMetric } from "./amd-smi-json.js";

const MiB = 1024 * 1024;
const read = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8");

const mi300x = [
  {
    index: 0,
    uuid: "e4ff74a1-0000-1000-8039-5c6b1a8e3d2f",
    pciBusId: "0000:0c:00.0",
    utilizationPercent: 98,
    memoryUsedBytes: 4976 * MiB,
    memoryTotalBytes: 196592 * MiB,
    powerWatts: 734,
    temperatureCelsius: 60,
  },
  {
    index: 1,
    uuid: "5aff74a1-0000-1000-80b2-7d0e4c9f6a13",
    pciBusId: "0000:22:00.0",
    utilizationPercent: 83,
    memoryUsedBytes: 4976 * MiB,
    memoryTotalBytes: 196592 * MiB,
    powerWatts: 652,
    temperatureCelsius: 60,
  },
];

describe("parseAmdSmiMetric", () => {
  it("reads the newest {gpu_data} output with units, hotspot when edge is N/A, and skips a GPU without usage", () => {
    const devices = parseAmdSmiList(read("amd-smi-list-mi300x.json"));
    const { gpus, skipped, indices } = parseAmdSmiMetric(
      read("amd-smi-metric-mi300x-gpu-data.json"),
      devices,
    );
    expect(gpus.map((g) => g.usage)).toEqual(mi300x);
    expect(gpus[1].identity).toEqual({
      index: 1,
      minor: 1,
      uuid: "5aff74a1-0000-1000-80b2-7d0e4c9f6a13",
      pciBusId: "0000:22:00.0",
    });
    expect(skipped).toEqual(["gpu 2: usage.gfx_activity not available"]);
    expect(indices).toEqual([0, 1, 2]);
  });

  it("reads the list of {value, unit} entries that releases before gpu_data print the same way", () => {
    const devices = parseAmdSmiList(read("amd-smi-list-mi300x.json"));
    expect(
      parseAmdSmiMetric(read("amd-smi-metric-mi300x-wrapped.json"), devices).gpus.map((g) => g.usage),
    ).toEqual(mi300x);
  });

  it("reads older bare numbers (VRAM in MB) and falls back to average_power when current_power is N/A", () => {
    const devices = parseAmdSmiList(read("amd-smi-list-mi250x.json"));
    const { gpus, skipped } = parseAmdSmiMetric(read("amd-smi-metric-mi250x-plain.json"), devices);
    expect(gpus.map((g) => g.usage)).toEqual([
      {
        index: 0,
        uuid: "27ff740c-0000-1000-8062-a3d5e1c0b1ef",
        pciBusId: "0000:c1:00.0",
        utilizationPercent: 97,
        memoryUsedBytes: 49152 * MiB,
        memoryTotalBytes: 65520 * MiB,
        powerWatts: 214,
        temperatureCelsius: 38,
      },
      {
        index: 1,
        uuid: "a8ff740c-0000-1000-808f-06a3d5e1c0b1",
        pciBusId: "0000:c6:00.0",
        utilizationPercent: 0,
        memoryUsedBytes: 10 * MiB,
        memoryTotalBytes: 65520 * MiB,
        temperatureCelsius: 36,
      },
    ]);
    expect(skipped).toEqual(["gpu 2: usage.gfx_activity not available"]);
  });

  it("reads the first releases' gfx_usage and current_power", () => {
    const text = JSON.stringify([
      {
        gpu: 0,
        usage: { gfx_usage: 55, mem_usage: 3, mm_ip_usage: "N/A" },
        power: { current_power: 120, current_gfx_voltage: "N/A", power_limit: "N/A" },
        temperature: { edge: 40, hotspot: 44, mem: 50 },
        mem_usage: { total_vram: 16368, used_vram: 1024, free_vram: 15344 },
      },
    ]);
    expect(parseAmdSmiMetric(text).gpus[0].usage).toEqual({
      index: 0,
      utilizationPercent: 55,
      memoryUsedBytes: 1024 * MiB,
      memoryTotalBytes: 16368 * MiB,
      powerWatts: 120,
      temperatureCelsius: 40,
    });
  });

  it("makes each partition a device with its own XCP's busy figure and VRAM, and no package power", () => {
    const devices = parseAmdSmiList(read("amd-smi-list-mi300x-dpx.json"));
    const { gpus, skipped } = parseAmdSmiMetric(read("amd-smi-metric-mi300x-dpx.json"), devices);
    expect(skipped).toEqual([]);
    expect(gpus.map((g) => g.usage)).toEqual([
      {
        index: 0,
        uuid: "e4ff74a1-0000-1000-8039-5c6b1a8e3d2f",
        pciBusId: "0000:0c:00.0",
        utilizationPercent: 71,
        memoryUsedBytes: 61440 * MiB,
        memoryTotalBytes: 98296 * MiB,
        temperatureCelsius: 51,
      },
      {
        index: 1,
        uuid: "e4ff74a1-0000-1000-8039-5c6b1a8e3d2f",
        pciBusId: "0000:0c:00.0",
        utilizationPercent: 12,
        memoryUsedBytes: 2048 * MiB,
        memoryTotalBytes: 98296 * MiB,
        temperatureCelsius: 51,
      },
    ]);
  });

  it("skips partitions it cannot place without amd-smi list's partition_id", () => {
    const { gpus, skipped } = parseAmdSmiMetric(read("amd-smi-metric-mi300x-dpx.json"));
    expect(gpus).toEqual([]);
    expect(skipped).toEqual([
      "gpu 0: usage.gfx_busy_inst.xcp_? not available for this partition",
      "gpu 1: usage.gfx_busy_inst.xcp_? not available for this partition",
    ]);
  });

  it("counts entries without an index or used VRAM, and converts other memory units", () => {
    const text = JSON.stringify({
      gpu_data: [
        { usage: { gfx_activity: { value: 5, unit: "%" } } },
        "N/A",
        { gpu: 1, usage: { gfx_activity: { value: 5, unit: "%" } }, mem_usage: "N/A" },
        {
          gpu: 2,
          usage: { gfx_activity: { value: 5, unit: "%" } },
          mem_usage: { used_vram: { value: 1, unit: "GB" } },
        },
        {
          gpu: 3,
          usage: { gfx_activity: { value: 5, unit: "%" } },
          mem_usage: { used_vram: { value: 1, unit: "??" } },
        },
      ],
    });
    const { gpus, skipped, indices } = parseAmdSmiMetric(text);
    expect(gpus.map((g) => [g.usage.index, g.usage.memoryUsedBytes])).toEqual([[2, 1024 * MiB]]);
    expect(skipped).toEqual([
      "entry 0: no gpu index",
      "entry 1: no gpu index",
      "gpu 1: mem_usage.used_vram not available",
      "gpu 3: mem_usage.used_vram not available",
    ]);
    expect(indices).toEqual([1, 2, 3]);
  });

  it("passes over a warning printed before the JSON and refuses what is not amd-smi JSON", () => {
    const warned = `User is missing the following required groups: render. Please add user to these groups.\n${read("amd-smi-metric-mi300x-wrapped.json")}`;
    expect(parseAmdSmiMetric(warned).gpus).toHaveLength(2);
    expect(() => parseAmdSmiMetric("AMD-SMI Command 'metric' is invalid")).toThrow(SyntaxError);
    expect(() => parseAmdSmiMetric('{"cpu_data": []}')).toThrow(
      'amd-smi metric --json printed neither a list of GPUs nor {"gpu_data": [...]}',
    );
  });
});

describe("parseAmdSmiList", () => {
  it("names each GPU's PCI address, UUID and partition, leaving out what amd-smi could not read", () => {
    expect(parseAmdSmiList(read("amd-smi-list-mi300x.json")).get(2)).toEqual({
      index: 2,
      pciBusId: "0000:38:00.0",
      uuid: "c7ff74a1-0000-1000-80e4-2a9d8b7c6f50",
      partitionId: 0,
    });
    const unread = parseAmdSmiList(
      '[{"gpu": 0, "bdf": "N/A", "uuid": "N/A", "kfd_id": "N/A", "node_id": "N/A"}]',
    );
    expect([...unread.values()]).toEqual([{ index: 0 }]);
  });
});
