import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateNodeEvent } from "@jobsight/schemas";
import type { NodeEvent } from "@jobsight/schemas/light";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CgroupVersion } from "../sources/cgroup-layout.js";
import { DcgmExporter } from "../sources/dcgm/dcgm-exporter.js";
import { ProcReader } from "../sources/proc-reader.js";
import { CadvisorSource } from "../sources/prometheus/cadvisor.js";
import { NodeExporterSource } from "../sources/prometheus/node-exporter.js";
import { DiskSpool } from "../spool/disk-spool.js";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { CgroupV1Tree } from "../test-support/cgroup-v1-tree.js";
import { ProcTree } from "../test-support/proc-tree.js";
import { takeSpooled } from "../test-support/spool-contents.js";
import { NodeMode, type NodeModeOptions } from "./node-mode.js";
import { gpuSourceName, SourceLimits, type SourceLimitsOptions } from "./source-limits.js";

const dcgmText = readFileSync(
  join(import.meta.dirname, "..", "sources", "dcgm", "fixtures", "dcgm-exporter-mig-kubernetes.prom"),
  "utf8",
);
// node_exporter's exposition of the families its source reads (cpu, meminfo), as its collectors write them.
const nodeExporterText = `# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 90000
node_cpu_seconds_total{cpu="0",mode="user"} 1000
# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.
# TYPE node_memory_MemAvailable_bytes gauge
node_memory_MemAvailable_bytes 1.2e+10
# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.
# TYPE node_memory_MemTotal_bytes gauge
node_memory_MemTotal_bytes 1.6e+10
`;
const cadvisorText = readFileSync(
  join(import.meta.dirname, "..", "sources", "prometheus", "fixtures", "kubelet-metrics-cadvisor.prom"),
  "utf8",
);
const slurmCg = (job: string) => `0::/system.slice/slurmstepd.scope/job_${job}/step_batch/user/task_0\n`;

const limitsOf = (events: NodeEvent[]) =>
  events
    .filter((e) => e.kind === "source_limits")
    .map((e) => [e.jobId, e.source, e.sourceLimits?.reads])
    .sort();

describe("NodeMode telling which source fed each job and what it cannot see", () => {
  let work: string;
  let proc: ProcTree;
  let spool: DiskSpool;
  let server: Server | undefined;
  let clock: number;
  const cleanups: (() => unknown)[] = [];

  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), "jobsight-limits-"));
    proc = new ProcTree();
    spool = await DiskSpool.open({ dir: join(work, "spool") });
    clock = Date.parse("2026-12-01T10:00:00Z");
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    if (server) await new Promise((r) => server!.close(r));
    server = undefined;
    await spool.close();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  /** A real HTTP server on 127.0.0.1 serving `body` as a Prometheus-format endpoint. */
  async function serve(body: string): Promise<string> {
    server = createServer((_req, res) => void res.writeHead(200).end(body));
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  }

  const nodeMode = (
    cgroupVersion: CgroupVersion,
    cgroupRoot: string,
    limits: Omit<SourceLimitsOptions, "cluster" | "cgroupVersion">,
    o: Partial<NodeModeOptions> = {},
  ) =>
    new NodeMode({
      cluster: "hpc1",
      node: "gpu07",
      spool,
      proc: new ProcReader({ root: proc.root }),
      cgroupVersion,
      cgroupRoot,
      trimHeap: false,
      now: () => clock,
      sourceLimits: new SourceLimits({ cluster: "hpc1", cgroupVersion, ...limits }),
      ...o,
    });

  it("says once, for the job that got GPU readings, that they came from dcgm-exporter and what it cannot see", async () => {
    const tree = new CgroupTree();
    cleanups.push(() => tree.cleanup());
    tree.slurmJob("4242");
    tree.slurmJob("4243");
    // Job 4242 holds /dev/nvidia0, which dcgm-exporter names device="nvidia0"; 4243 has no GPU.
    proc.add({ pid: 4100, comm: "python", cgroup: slurmCg("4242"), environ: { SLURM_JOB_GPUS: "0" } });
    proc.add({ pid: 4200, comm: "bash", cgroup: slurmCg("4243") });
    const dcgm = new DcgmExporter({ url: await serve(dcgmText) });
    await dcgm.scrape();
    const gpu = { name: gpuSourceName("dcgm"), cannotSee: dcgm.cannotSee };
    const mode = nodeMode("v2", tree.root, { gpu }, { gpus: dcgm });
    cleanups.push(() => mode.stop());
    await mode.collect();
    clock += 10_000;
    await mode.collect();

    const { samples, events } = await takeSpooled(spool);
    const gpusOf = (job: string) =>
      samples.filter((s) => s.jobId === job).map((s) => s.gpus?.map((g) => g.index));
    expect(gpusOf("4242")).toEqual([[0], [0]]);
    expect(gpusOf("4243")).toEqual([undefined, undefined]);
    const limits = events.filter((e) => e.kind === "source_limits");
    expect(limits).toEqual([
      {
        cluster: "hpc1",
        node: "gpu07",
        time: "2026-12-01T10:00:00.000Z",
        kind: "source_limits",
        jobId: "4242",
        source: "dcgm-exporter",
        sourceLimits: {
          reads: "gpu",
          cannotSee: ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"],
        },
        message:
          "dcgm-exporter cannot see: processes on each GPU; GPUs lost from the bus (nvidia-smi's view)",
        idempotencyKey: "source-limits:dcgm-exporter:gpu07:4242",
      },
    ]);
    expect(validateNodeEvent(limits[0]).ok).toBe(true);
  });

  it("names cAdvisor's limits for each pod read from it, and none for a pod read from its cgroup", async () => {
    const tree = new CgroupTree();
    cleanups.push(() => tree.cleanup());
    const outside = "0badf00d-1111-4222-8333-444455556666";
    tree.pod(outside, { containers: ["c1"] });
    const cadvisor = new CadvisorSource({ url: await serve(cadvisorText) });
    const mode = nodeMode("v2", tree.root, { cadvisor }, { cadvisor, topProcesses: 0 });
    cleanups.push(() => mode.stop());
    await mode.collect();
    const { samples, events } = await takeSpooled(spool);
    expect(samples.map((x) => x.jobId)).toContain(outside);
    // The two pods of the kubelet's exposition; the third pod's cgroup is read as usual.
    expect(limitsOf(events)).toEqual(
      [
        ["8d5d1b2a-3c4e-4f60-9a7b-2e1f0c3d4b5a", "cadvisor", "usage"],
        ["c0ffee00-1111-4222-8333-444455556666", "cadvisor", "usage"],
      ].sort(),
    );
  });

  it("names cgroup v1's limits for a job read from its v1 directories", async () => {
    const tree = new CgroupV1Tree();
    cleanups.push(() => tree.cleanup());
    tree.slurmJob(1000, "77");
    const mode = nodeMode("v1", tree.root, {}, { topProcesses: 0 });
    cleanups.push(() => mode.stop());
    await mode.collect();
    const { samples, events } = await takeSpooled(spool);
    expect(samples.map((s) => s.jobId)).toEqual(["77"]);
    expect(limitsOf(events)).toEqual([["77", "cgroup-v1", "usage"]]);
    const e = events.find((x) => x.kind === "source_limits")!;
    expect(e.sourceLimits?.cannotSee.join(" ")).toMatch(/pressure stall \(PSI\)/);
    expect(validateNodeEvent(e).ok).toBe(true);
  });

  it("names node_exporter for a job it read alone on the node, and /proc's limits once jobs share the node", async () => {
    const nodeExporter = new NodeExporterSource({ url: await serve(nodeExporterText), now: () => clock });
    const mode = nodeMode("none", join(work, "no-cgroups"), { nodeExporter }, { nodeExporter });
    cleanups.push(() => mode.stop());
    proc.add({ pid: 100, comm: "slurmstepd", cmdline: ["slurmstepd: [4242.batch]"] });
    proc.add({ pid: 101, ppid: 100, comm: "python", rssBytes: 2 ** 30 });
    await mode.collect();
    expect(limitsOf((await takeSpooled(spool)).events)).toEqual([["4242", "node_exporter", "usage"]]);

    proc.add({ pid: 200, comm: "slurmstepd", cmdline: ["slurmstepd: [4243.batch]"] });
    proc.add({ pid: 201, ppid: 200, comm: "python", rssBytes: 2 ** 30 });
    clock += 10_000;
    await mode.collect();
    const shared = (await takeSpooled(spool)).events;
    expect(limitsOf(shared)).toEqual([
      ["4242", "proc", "usage"],
      ["4243", "proc", "usage"],
    ]);
    for (const e of shared) expect(validateNodeEvent(e).ok).toBe(true);
  });
});

describe("SourceLimits", () => {
  const usage = (jobs: string[]) => new Map(jobs.map((j) => [j, { usage: {}, node: "gpu07" }]));
  const round = (jobs: string[]) => ({
    time: "2026-12-01T10:00:00.000Z",
    usage: usage(jobs),
    gpus: new Map(jobs.map((j) => [j, [{}]])),
  });

  it("keeps a long declaration within the schema's bounds, and sends nothing for an empty one", () => {
    const long = Array.from({ length: 20 }, (_, i) => `${i} ${"x".repeat(300)}`);
    const events = new SourceLimits({
      cluster: "hpc1",
      cgroupVersion: "v2",
      gpu: { name: "some-smi", cannotSee: ["  ", ...long] },
    }).events(round(["4242"]));
    expect(events).toHaveLength(1);
    expect(events[0].sourceLimits?.cannotSee).toHaveLength(16);
    expect(events[0].sourceLimits?.cannotSee[0]).toBe(long[0].slice(0, 256));
    expect(validateNodeEvent(events[0]).ok).toBe(true);
    const silent = new SourceLimits({
      cluster: "hpc1",
      cgroupVersion: "v2",
      gpu: { name: "x", cannotSee: [] },
    });
    expect(silent.events(round(["4242"]))).toEqual([]);
  });

  it("tells a job again only after it was gone for a round, under the same idempotency key", () => {
    const limits = new SourceLimits({
      cluster: "hpc1",
      cgroupVersion: "v2",
      gpu: { name: "nvidia-smi", cannotSee: ["MIG instances (read as their whole GPU)"] },
    });
    const keys = (jobs: string[]) => limits.events(round(jobs)).map((e) => e.idempotencyKey);
    expect(keys(["1", "2"])).toEqual([
      "source-limits:nvidia-smi:gpu07:1",
      "source-limits:nvidia-smi:gpu07:2",
    ]);
    expect(keys(["1", "2"])).toEqual([]);
    expect(keys(["2"])).toEqual([]);
    expect(keys(["1", "2"])).toEqual(["source-limits:nvidia-smi:gpu07:1"]);
  });
});

describe("gpuSourceName", () => {
  it("names the dcgm source after its exporter and the commands after themselves", () => {
    expect(gpuSourceName("dcgm")).toBe("dcgm-exporter");
    expect(gpuSourceName("nvidia-smi")).toBe("nvidia-smi");
    expect(gpuSourceName("rocm-smi")).toBe("rocm-smi");
  });
});
