import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unpadTables } from "../../../test/markdown.js";
import { counter, decode, gauge, point, request } from "../../../test/standard-requests.js";
import { standardInputs } from "./standard-inputs.js";
import { standardInputsMarkdown } from "./standard-inputs-table.js";

const pod = {
  "k8s.namespace.name": "ml",
  "k8s.pod.name": "train-0",
  "k8s.pod.uid": "4A5B6C7D-1111-2222-3333-444455556666",
  "k8s.node.name": "gpu07",
};

describe("standard OpenTelemetry inputs", () => {
  it("maps kubeletstats pod and container metrics to the pod's job, usage winning over working set", () => {
    const { samples, rejected, skipped } = decode(
      request(
        [
          pod,
          [
            gauge("k8s.pod.memory.working_set", "By", point(900)),
            gauge("k8s.pod.memory.usage", "By", point(1000)),
            counter("k8s.pod.cpu.time", "s", 2, point(12.5)),
          ],
        ],
        [
          { ...pod, "k8s.container.name": "trainer" },
          [gauge("container.memory.working_set", "By", point(700))],
        ],
      ),
      { cluster: "k8s1" },
    );
    expect(rejected.count).toBe(0);
    expect(skipped.count).toBe(0);
    expect(samples).toEqual([
      {
        cluster: "k8s1",
        jobId: "ml/train-0",
        node: "gpu07",
        time: "2026-12-02T16:30:00.000Z",
        memory: { currentBytes: 1000 },
        cpu: { usageSeconds: 12.5 },
      },
      {
        cluster: "k8s1",
        jobId: "ml/train-0",
        node: "gpu07",
        step: "trainer",
        time: "2026-12-02T16:30:00.000Z",
        memory: { currentBytes: 700 },
      },
    ]);
  });

  it("sums hostmetrics processes into the SLURM job their cgroup names, by CPU mode", () => {
    const proc = (pid: number) => ({
      "host.name": "cn001",
      "process.pid": pid,
      "process.owner": "alice",
      "process.cgroup": "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0",
    });
    const cpu = (user: number, system: number) =>
      counter(
        "process.cpu.time",
        "s",
        2,
        point(user, { state: "user" }, false),
        point(system, { state: "system" }, false),
        point(3, { state: "wait" }, false),
      );
    const { samples, skipped } = decode(
      request(
        [proc(100), [gauge("process.memory.usage", "By", point(2 ** 30)), cpu(10.5, 1.5)]],
        [proc(101), [gauge("process.memory.usage", "MiBy", point(512)), cpu(4, 0.5)]],
      ),
      { cluster: "hpc1" },
    );
    expect(samples).toEqual([
      {
        cluster: "hpc1",
        jobId: "42",
        node: "cn001",
        time: "2026-12-02T16:30:00.000Z",
        user: "alice",
        memory: { currentBytes: 2 ** 30 + 512 * 2 ** 20 },
        cpu: { usageSeconds: 16.5, userSeconds: 14.5, systemSeconds: 2 },
      },
    ]);
    expect(skipped).toEqual({ count: 2, byReason: { not_applicable: { "process.cpu.time": 2 } } });
  });

  it("reads hw.gpu metrics of a job named by its resource, with the index from hw.id", () => {
    const { samples, rejected } = decode(
      request([
        { "jobsight.job.id": "77", "host.name": "gpu07" },
        [
          gauge("hw.gpu.utilization", "1", point(0.42, { "hw.id": "nvidia1", "hw.gpu.task": "general" })),
          gauge("hw.gpu.utilization", "1", point(0.9, { "hw.id": "nvidia1", "hw.gpu.task": "decoder" })),
          gauge("hw.gpu.memory.usage", "By", point(4096, { "hw.id": "nvidia1" })),
          gauge("hw.gpu.memory.limit", "By", point(8192, { "hw.id": "nvidia1" })),
          gauge("hw.gpu.memory.usage", "By", point(1, { "hw.id": "GPU-8f6c2d1e" })),
        ],
      ]),
      { cluster: "hpc1" },
    );
    expect(samples[0].gpus).toEqual([
      { index: 1, utilizationPercent: 42, memoryUsedBytes: 4096, memoryTotalBytes: 8192 },
    ]);
    expect(Object.keys(rejected.reasons)).toEqual([
      'hw.gpu.memory.usage: needs jobsight.gpu.index, or an hw.id such as "0" or "nvidia0"',
    ]);
  });

  it("skips what names no job and keeps the rest; refuses wrong units and delta counters", () => {
    const { samples, rejected, skipped } = decode(
      request(
        [
          { "host.name": "cn001" },
          [counter("system.cpu.time", "s", 2, point(100.5, { "cpu.mode": "user" }))],
        ],
        [{ "container.id": "abc" }, [gauge("container.memory.usage", "By", point(5))]],
        [
          pod,
          [
            gauge("k8s.pod.memory.usage", "By", point(1000)),
            gauge("k8s.pod.memory.rss", "s", point(1)),
            counter("k8s.pod.cpu.time", "s", 1, point(2.5)),
            gauge("node_cpu_seconds_total", "", point(1)),
          ],
        ],
      ),
      { cluster: "k8s1" },
    );
    expect(samples.map((s) => [s.jobId, s.memory])).toEqual([["ml/train-0", { currentBytes: 1000 }]]);
    expect(skipped).toEqual({
      count: 3,
      byReason: {
        unattributed: { "system.cpu.time": 1 },
        container_unmapped: { "container.memory.usage": 1 },
        unknown_metric: { node_cpu_seconds_total: 1 },
      },
    });
    expect(rejected.reasons).toEqual({
      'k8s.pod.memory.rss: unit "s" is not By': 1,
      "k8s.pod.cpu.time: delta temporality; send cumulative sums": 1,
    });
  });

  it("takes the sender's cluster, and refuses a point naming another", () => {
    const { samples, rejected } = decode(
      request([
        { ...pod, "k8s.pod.name": "other", "jobsight.cluster": "elsewhere" },
        [gauge("k8s.pod.memory.usage", "By", point(1))],
      ]),
      { cluster: "k8s1" },
    );
    expect(samples).toEqual([]);
    expect(rejected.reasons).toEqual({ "cluster elsewhere is not this sender's cluster (k8s1)": 1 });
    const uid = decode(
      request([
        { "k8s.pod.uid": pod["k8s.pod.uid"], "host.name": "gpu07" },
        [gauge("k8s.pod.memory.usage", "By", point(1))],
      ]),
      { cluster: "k8s1" },
    );
    // Without namespace and name, the pod UID: the job id Jobsight's node collector gives pod samples.
    expect(uid.samples[0].jobId).toBe("4a5b6c7d-1111-2222-3333-444455556666");
  });

  it("is documented in the README and docs/telemetry-inputs.md exactly as defined", () => {
    const table = unpadTables(standardInputsMarkdown(standardInputs));
    for (const path of ["../../../README.md", "../../../../../docs/telemetry-inputs.md"]) {
      expect(unpadTables(readFileSync(new URL(path, import.meta.url), "utf8"))).toContain(table);
    }
  });
});
