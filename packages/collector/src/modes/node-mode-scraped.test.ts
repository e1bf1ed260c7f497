import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateUsageSample } from "@jobsight/schemas";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcReader } from "../sources/proc-reader.js";
import { CadvisorSource } from "../sources/prometheus/cadvisor.js";
import { NodeExporterSource } from "../sources/prometheus/node-exporter.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode, type NodeModeOptions } from "./node-mode.js";

const cadvisorText = readFileSync(
  join(import.meta.dirname, "..", "sources", "prometheus", "fixtures", "kubelet-metrics-cadvisor.prom"),
  "utf8",
);
const TRAIN = "8d5d1b2a-3c4e-4f60-9a7b-2e1f0c3d4b5a";
const INFER = "c0ffee00-1111-4222-8333-444455556666";
const GiB = 1024 ** 3;

// node_exporter's exposition of the four families the source reads, as its cpu, meminfo, loadavg and pressure collectors write them.
const nodeText = (
  busy: number,
  waiting: number,
) => `# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 90000
node_cpu_seconds_total{cpu="0",mode="iowait"} 50
node_cpu_seconds_total{cpu="0",mode="system"} 100
node_cpu_seconds_total{cpu="0",mode="user"} ${busy}
# HELP node_load1 1m load average.
# TYPE node_load1 gauge
node_load1 3.5
# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.
# TYPE node_memory_MemAvailable_bytes gauge
node_memory_MemAvailable_bytes 1.2e+10
# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.
# TYPE node_memory_MemTotal_bytes gauge
node_memory_MemTotal_bytes 1.6e+10
# HELP node_pressure_cpu_waiting_seconds_total Total time in seconds that processes have waited for CPU time
# TYPE node_pressure_cpu_waiting_seconds_total counter
node_pressure_cpu_waiting_seconds_total ${waiting}
`;

describe("NodeMode with Prometheus-format sources", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  let spool: DiskSpool;
  let server: Server;
  let body: () => string;
  let status: number;
  let url: string;
  let clock: number;

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-scraped-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    clock = Date.parse("2026-12-01T10:00:00Z");
    status = 200;
    server = createServer((_req, res) => void res.writeHead(status).end(body()));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterEach(async () => {
    await new Promise((r) => server.close(r));
    await spool.close();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  const nodeMode = (o: Partial<NodeModeOptions>) =>
    new NodeMode({
      cluster: "k1",
      node: "n01",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion: "v2",
      cgroupRoot: tree.root,
      topProcesses: 0,
      trimHeap: false,
      now: () => clock,
      ...o,
    });

  it("takes each pod's usage from cAdvisor, and falls back to the cgroups when the scrape fails", async () => {
    body = () => cadvisorText;
    tree.pod(TRAIN, { memoryCurrent: 1 * GiB, containers: ["c1"] });
    let mode: NodeMode | undefined;
    const cadvisor = new CadvisorSource({
      url,
      onUnavailable: (m) => mode?.sourceUnavailable("cadvisor", m),
    });
    mode = nodeMode({ cadvisor });
    await mode.collect();
    let { samples } = await takeSpooled(spool);
    expect(samples.map((s) => s.jobId).sort()).toEqual([TRAIN, INFER].sort());
    for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
    expect(samples.find((s) => s.jobId === TRAIN)).toMatchObject({
      node: "n01",
      memory: { currentBytes: 9663676416, limitBytes: 16 * GiB },
      cpu: { usageSeconds: 48211.734, throttledPeriods: 4123 },
    });

    status = 500;
    clock += 10_000;
    await mode.collect();
    const second = await takeSpooled(spool);
    samples = second.samples;
    // The pod with a cgroup is read from it; the one only cAdvisor saw is not taken for ended.
    expect(samples.map((s) => [s.jobId, s.memory?.currentBytes, s.final])).toEqual([
      [TRAIN, 1 * GiB, undefined],
    ]);
    expect(second.events).toMatchObject([{ kind: "source_unavailable", source: "cadvisor" }]);
    expect(mode.stats()).toMatchObject({ rounds: 2, failedRounds: 0 });
  });

  it("gives a job alone on its node the node's figures from node_exporter, and nothing once it shares the node", async () => {
    let busy = 1000;
    body = () => nodeText(busy, 40);
    const mode = nodeMode({
      cgroupVersion: "none",
      topProcesses: 5,
      nodeExporter: new NodeExporterSource({ url, now: () => clock }),
    });
    proc.add({ pid: 100, comm: "slurmstepd", cmdline: ["slurmstepd: [4242.batch]"] });
    proc.add({ pid: 101, ppid: 100, comm: "python", rssBytes: 1 * GiB });
    await mode.collect();
    busy = 1030;
    body = () => nodeText(busy, 45);
    clock += 10_000;
    await mode.collect();
    const { samples } = await takeSpooled(spool);
    expect(samples.map((s) => s.jobId)).toEqual(["4242", "4242"]);
    for (const s of samples) expect(validateUsageSample(s)).toMatchObject({ ok: true });
    // Without cgroups the node's used memory (total less available) replaces the /proc sum.
    expect(samples[1]).toMatchObject({
      memory: { currentBytes: 4e9, peakBytes: 4e9 },
      cpu: { usageSeconds: 30, nodeLoad1: 3.5 },
      pressure: { cpuSome: 50 },
    });

    proc.add({ pid: 200, comm: "slurmstepd", cmdline: ["slurmstepd: [4243.batch]"] });
    proc.add({ pid: 201, ppid: 200, comm: "python", rssBytes: 1 * GiB });
    clock += 10_000;
    await mode.collect();
    const shared = (await takeSpooled(spool)).samples;
    expect(shared.map((s) => s.jobId).sort()).toEqual(["4242", "4243"]);
    for (const s of shared) {
      expect(s.memory?.currentBytes).toBe(1 * GiB);
      expect(s.cpu?.nodeLoad1).toBeUndefined();
      expect(s.pressure).toBeUndefined();
    }
  });
});
