import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { jobMetricDefinitions, LegacySeriesAttributes, SeriesAttributes } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  createTimescaleTestDatabase,
  type TestDatabase,
} from "../../../../test/services/index.js";
// `jobsight-server serve` from source, on free ports, as the server's own integration tests run it.
import {
  type ServerProcess,
  startServerProcess,
  stopProcess,
} from "../../../server/test/integration/server-process.js";
import { CgroupTree } from "../../src/test-support/cgroup-tree.js";
import { fakeCommand } from "../../src/test-support/fake-command.js";
import { ProcTree } from "../../src/test-support/proc-tree.js";
import { startTap } from "./support/tcp-tap.js";

// Issue #26: the real collector command, in node mode over a cgroup v2 tree and a fake nvidia-smi
// printing recorded output, ships over OTLP/gRPC (its only OTLP transport) with each name set to a
// real `jobsight-server serve` on PostgreSQL and on TimescaleDB, through a TCP tap that shows the
// names on the wire; the samples read back through the API must hold the fixture's figures, and
// neither end may have rejected or skipped a point.

const cli = join(import.meta.dirname, "..", "..", "src", "cli.ts");
const repo = join(import.meta.dirname, "..", "..", "..", "..");
const gpuFixtures = join(import.meta.dirname, "..", "..", "src", "sources", "gpu", "fixtures");
const COLLECTOR = "collector-names-hpc1-token-01";
const PLATFORM = "platform-names-token-00000001";
const MiB = 1024 * 1024;
const NAME_SETS = ["conventions", "legacy"] as const;
type NameSet = (typeof NAME_SETS)[number];

// The job's cgroup (kernel formats, see CgroupTree) and the GPUs nvidia-smi reports for it.
const CGROUP = {
  memoryCurrent: 3_263_168_512,
  memoryPeak: 4_294_967_296,
  memoryMax: 8_589_934_592,
  anon: 2_936_012_800,
  file: 314_572_800,
  shmem: 8_388_608,
  swapCurrent: 1_048_576,
  oom: 2,
  oomKill: 1,
  usageUsec: 7_654_321_987,
  userUsec: 7_000_000_000,
  systemUsec: 654_321_987,
  nrPeriods: 1200,
  nrThrottled: 34,
  throttledUsec: 2_500_000,
  cpuMaxCores: 4,
  pids: 7,
};
// nvidia-smi-query-gpu.csv: GPU 0 runs pid 4242 and GPU 2 pid 5151 (nvidia-smi-compute-apps.csv).
const GPUS = [
  {
    index: 0,
    uuid: "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69",
    pciBusId: "00000000:3B:00.0",
    utilizationPercent: 87,
    memoryUsedBytes: 30_512 * MiB,
    memoryTotalBytes: 40_960 * MiB,
    powerWatts: 245.67,
    temperatureCelsius: 71,
  },
  {
    index: 2,
    uuid: "GPU-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
    pciBusId: "00000000:86:00.0",
    utilizationPercent: 12,
    memoryUsedBytes: 1024 * MiB,
    memoryTotalBytes: 16_384 * MiB,
    temperatureCelsius: 45,
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const platform = { authorization: `Bearer ${PLATFORM}` };

/**
 * Sum of every series of counter `name` in a Prometheus text exposition (0 when it has none yet);
 * the counter must be declared, so a renamed one fails here instead of reading as 0.
 */
function counterSum(text: string, name: string): number {
  expect(text, `no counter ${name}`).toContain(`# TYPE ${name} counter\n`);
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) sum += Number(m[3]);
  }
  return sum;
}

/** The server's OTLP counters: samples stored, points rejected, points skipped. */
async function otlpCounters(server: ServerProcess) {
  const res = await fetch(`${server.url}/metrics`, { headers: platform });
  expect(res.status).toBe(200);
  const text = await res.text();
  return {
    accepted: counterSum(text, "jobsight_otlp_samples_total"),
    rejected: counterSum(text, "jobsight_otlp_points_rejected_total"),
    skipped: counterSum(text, "jobsight_otlp_points_skipped_total"),
  };
}

async function storedSamples(server: ServerProcess, jobId: string): Promise<UsageSample[]> {
  const res = await fetch(`${server.url}/v1/jobs/${jobId}/usage?cluster=hpc1`, { headers: platform });
  expect(res.status).toBe(200);
  return ((await res.json()) as { samples: UsageSample[] }).samples;
}

/** A collector's run: the command, its own `/metrics` port (from its log), and its output. */
type CollectorRun = { child: ChildProcess; healthPort: Promise<number>; output: string[] };

function startCollectorCommand(args: string[]): CollectorRun {
  const child = spawn(process.execPath, ["--import", "tsx", cli, "run", ...args], {
    cwd: repo,
    // Uncompressed, whatever the environment says, so the tap can read the names.
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_COMPRESSION: "none",
      OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: "none",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const healthPort = new Promise<number>((resolve) => {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line);
        if (line.includes('"health endpoint listening"')) resolve(JSON.parse(line).port);
      });
    }
  });
  return { child, healthPort, output };
}

/**
 * Waits until the server holds two samples of the job with its GPUs; fails at once, with the
 * collector's log, if the collector logs an error (a refused batch) or exits.
 */
async function untilStored(run: CollectorRun, server: ServerProcess, jobId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const samples = await storedSamples(server, jobId);
    if (samples.filter((s) => s.gpus).length >= 2) return;
    const failed = run.output.some((l) => l.includes('"level":"error"')) || run.child.exitCode !== null;
    if (failed || Date.now() > deadline) {
      throw new Error(`${samples.length} samples stored; the collector said:\n${run.output.join("\n")}`);
    }
    await sleep(500);
  }
}

describe.each([
  { flavour: "plain", timescale: "off", database: createTestDatabase },
  { flavour: "timescale", timescale: "require", database: createTimescaleTestDatabase },
])("collector --otlp-names against jobsight-server serve on $flavour", ({ flavour, timescale, database }) => {
  let db: TestDatabase;
  let work: string;
  let server: ServerProcess;
  const stored = new Map<NameSet, UsageSample[]>();
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    db = await database(`otlp_names_${flavour}`);
    work = mkdtempSync(join(tmpdir(), "jobsight-otlp-names-"));
    const config = join(work, "jobsight.json");
    const tokens = [
      { token: COLLECTOR, role: "collector", user: "svc", cluster: "hpc1" },
      { token: PLATFORM, role: "platform", user: "ops" },
    ];
    const postgres = { url: db.url, timescale };
    const serverConfig = {
      dataDir: join(work, "server"),
      postgres,
      rateLimit: { enabled: false },
      auth: { tokens },
    };
    // Holds secrets: the server refuses a config file others can read.
    writeFileSync(config, JSON.stringify(serverConfig), { mode: 0o600 });
    server = await startServerProcess(["--config", config]);
    const listening = server.output.find((l) => l.includes('"jobsight-server listening"'))!;
    expect(JSON.parse(listening).storage).toBe(flavour);
    const registered = await fetch(`${server.url}/v1/clusters`, {
      method: "POST",
      headers: { ...platform, "content-type": "application/json" },
      body: JSON.stringify({ id: "hpc1", name: "HPC 1", scheduler: "slurm" }),
    });
    expect(registered.status).toBeLessThan(300);
  });

  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    if (server) await stopProcess(server.child);
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each(NAME_SETS)("stores the fixture's figures, none rejected, with --otlp-names %s", async (names) => {
    const jobId = names === "conventions" ? "7001" : "7002";
    const tree = new CgroupTree();
    const proc = new ProcTree();
    const smi = fakeCommand(
      "nvidia-smi",
      // `-lms` prints a block of every GPU per interval until killed; compute apps once per call.
      `case "$*" in
  *--query-compute-apps*) cat "${gpuFixtures}/nvidia-smi-compute-apps.csv" ;;
  *) while :; do cat "${gpuFixtures}/nvidia-smi-query-gpu.csv"; sleep 0.2; done ;;
esac`,
    );
    cleanups.push(
      () => tree.cleanup(),
      () => proc.cleanup(),
      smi.cleanup,
    );
    tree.slurmJob(jobId, { ...CGROUP, procs: [4242, 5151] });
    const cgroup = `0::/system.slice/slurmstepd.scope/job_${jobId}/step_batch/user/task_0\n`;
    proc.add({ pid: 4242, comm: "python", rssBytes: 2900 * MiB, state: "R", cgroup });
    proc.add({ pid: 5151, comm: "python", rssBytes: 700 * MiB, cgroup });
    const tokenFile = join(work, `token-${names}`);
    writeFileSync(tokenFile, `${COLLECTOR}\n`, { mode: 0o600 });
    const spool = join(work, `spool-${names}`);
    const before = await otlpCounters(server);
    const tap = await startTap(server.otlpGrpc!);
    cleanups.push(() => tap.close());

    const run = startCollectorCommand([
      ...["--cluster", "hpc1", "--node", "gpu07", "--interval", "1", "--kmsg", "false"],
      ...["--cgroup-root", tree.root, "--cgroup-version", "v2", "--proc-root", proc.root],
      ...["--gpu", "on", "--nvidia-smi", smi.path, "--spool-dir", spool],
      ...["--url", server.url, "--otlp-url", tap.url, "--otlp-names", names],
      ...["--token-file", tokenFile, "--health-port", "0", "--log-level", "info"],
    ]);
    cleanups.push(() => stopProcess(run.child));
    await untilStored(run, server, jobId);
    const collectorMetrics = await (await fetch(`http://127.0.0.1:${await run.healthPort}/metrics`)).text();
    const exited = new Promise<number | null>((resolve) => run.child.once("exit", resolve));
    run.child.kill("SIGTERM");
    expect(await exited, run.output.join("\n")).toBe(0);
    expect(run.output.filter((l) => /"level":"(error|warn)"/.test(l))).toEqual([]);

    const samples = await storedSamples(server, jobId);
    stored.set(names, samples);
    for (const s of samples) {
      expect(s).toMatchObject({ cluster: "hpc1", jobId, node: "gpu07" });
      expect(s.memory).toEqual({
        currentBytes: CGROUP.memoryCurrent,
        peakBytes: CGROUP.memoryPeak,
        limitBytes: CGROUP.memoryMax,
        anonBytes: CGROUP.anon,
        fileBytes: CGROUP.file,
        shmemBytes: CGROUP.shmem,
        swapBytes: CGROUP.swapCurrent,
        oomEvents: CGROUP.oom,
        oomKillEvents: CGROUP.oomKill,
      });
      expect(s.cpu).toMatchObject({
        usageSeconds: 7654.321987,
        userSeconds: 7000,
        systemSeconds: 654.321987,
        periods: CGROUP.nrPeriods,
        throttledPeriods: CGROUP.nrThrottled,
        throttledSeconds: 2.5,
        limitCores: 4,
      });
      if (s.gpus) expect(s.gpus).toEqual(GPUS);
    }
    // Every sample stored came in over OTLP, none twice; no point was rejected or skipped.
    const after = await otlpCounters(server);
    expect(after.accepted - before.accepted).toBe(samples.length);
    expect(after.rejected - before.rejected).toBe(0);
    expect(after.skipped - before.skipped).toBe(0);
    expect(counterSum(collectorMetrics, "jobsight_collector_shipped_records_total")).toBeGreaterThan(0);
    expect(counterSum(collectorMetrics, "jobsight_collector_rejected_records_total")).toBe(0);
    expect(existsSync(join(spool, "rejected"))).toBe(false);
    // What went over the wire: every renamed metric and key under the chosen name, none under the other.
    const renamed = [
      ...jobMetricDefinitions.flatMap((d) => (d.legacyName ? [[d.name, d.legacyName]] : [])),
      [SeriesAttributes.gpuUuid, LegacySeriesAttributes.gpuUuid],
      [SeriesAttributes.processState, LegacySeriesAttributes.processState],
    ];
    const named = (legacy: boolean) => renamed.map(([now, old]) => (legacy ? old : now));
    expect(named(names === "legacy").filter((n) => !tap.sentField(n))).toEqual([]);
    expect(named(names !== "legacy").filter((n) => tap.sentField(n))).toEqual([]);
  });

  it("stores the same samples under either name set", async () => {
    const last = (names: NameSet) => {
      const samples = stored.get(names)?.filter((s) => s.gpus);
      expect(samples ?? [], `no samples with --otlp-names ${names}`).not.toHaveLength(0);
      const { time: _time, jobId: _jobId, ...rest } = samples!.at(-1)!;
      return rest;
    };
    expect(last("legacy")).toEqual(last("conventions"));
  });
});
