import { describe, expect, it } from "vitest";
import { counter, decode, gauge, point, request } from "../../../test/standard-requests.js";
import type { Metric, NumberDataPoint } from "../../otlp/otlp-types.js";

const cpuTime = (...points: NumberDataPoint[]): Metric => counter("system.cpu.time", "s", 2, ...points);

// hostmetrics on a SLURM node: node-wide CPU and memory, and one process without its cgroup.
const node = request(
  [
    { "host.name": "cn001" },
    [
      cpuTime(
        point(100.5, { "cpu.mode": "user" }),
        point(20, { "cpu.mode": "system" }),
        point(900, { "cpu.mode": "idle" }),
      ),
      gauge("system.memory.usage", "By", point(4096, { "system.memory.state": "used" })),
      gauge("hw.gpu.utilization", "1", point(0.5, { "hw.id": "0" })),
      gauge("hw.gpu.memory.usage", "By", point(1024, { "hw.id": "0" })),
      gauge("process.memory.usage", "By", point(77, { "process.pid": 12 })),
    ],
  ],
  [{ "container.id": "0123abcd" }, [gauge("container.memory.usage", "By", point(5))]],
  [{ "k8s.node.name": "gpu07" }, [gauge("container.memory.usage", "By", point(6))]],
);

describe("node-wide inputs that name only their node", () => {
  it("are skipped as unattributed, and a lone container.id as container_unmapped, by default", () => {
    const { samples, skipped, hostOnly } = decode(node, { cluster: "hpc1" });
    expect(samples).toEqual([]);
    expect(hostOnly).toBeUndefined();
    expect(skipped.byReason).toEqual({
      unattributed: {
        "system.cpu.time": 3,
        "system.memory.usage": 1,
        "hw.gpu.utilization": 1,
        "hw.gpu.memory.usage": 1,
        "process.memory.usage": 1,
        "container.memory.usage": 1,
      },
      container_unmapped: { "container.memory.usage": 1 },
    });
  });

  it("become one host-only sample per node and time with hostOnly; processes and containers do not", () => {
    const { samples, skipped, rejected, hostOnly } = decode(node, { cluster: "hpc1", hostOnly: true });
    expect(samples).toEqual([]);
    expect(rejected.reasons).toEqual({});
    expect(hostOnly).toEqual([
      {
        sample: {
          cluster: "hpc1",
          jobId: "",
          node: "cn001",
          time: "2026-12-02T16:30:00.000Z",
          memory: { currentBytes: 4096 },
          cpu: { usageSeconds: 120.5, userSeconds: 100.5, systemSeconds: 20 },
          gpus: [{ index: 0, utilizationPercent: 50, memoryUsedBytes: 1024 }],
        },
        metrics: {
          "system.cpu.time": 2,
          "system.memory.usage": 1,
          "hw.gpu.utilization": 1,
          "hw.gpu.memory.usage": 1,
        },
      },
    ]);
    // The idle CPU mode feeds nothing; a process or container without its job is not the node.
    expect(skipped.byReason).toEqual({
      not_applicable: { "system.cpu.time": 1 },
      unattributed: { "process.memory.usage": 1, "container.memory.usage": 1 },
      container_unmapped: { "container.memory.usage": 1 },
    });
  });

  it("that name a job are that job's, hostOnly or not", () => {
    const { samples, hostOnly } = decode(
      request([{ "host.name": "cn001", "jobsight.job.id": "42" }, [cpuTime(point(3))]]),
      { cluster: "hpc1", hostOnly: true },
    );
    expect(samples.map((s) => [s.jobId, s.node, s.cpu])).toEqual([["42", "cn001", { usageSeconds: 3 }]]);
    expect(hostOnly).toEqual([]);
  });
});
