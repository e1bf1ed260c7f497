#!/usr/bin/env node
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Diagnosis } from "@jobsight/schemas";
import { DemoApi } from "./demo-api.js";
import { runJobsightCli } from "./demo-cli.js";
import { runDemoCollector } from "./demo-collector.js";
import { prepareDemoDataDir, stopDemoPostgres } from "./demo-data-dir.js";
import { describeDiagnosis } from "./demo-diagnoses.js";
import { importDemoHistory } from "./demo-history.js";
import { demoJobRecords } from "./demo-jobs.js";
import { DEMO_JOBS, DemoNode } from "./demo-node.js";
import { startDemoServer } from "./demo-server.js";
import { DemoShutdown } from "./demo-shutdown.js";
import { DemoProgress } from "./progress.js";

const USAGE = `Usage: node packages/server/dist/demo/main.js [options]

Starts Jobsight on embedded defaults, collects a generated GPU node, imports the LANL-CM5 trace,
trains, predicts and diagnoses, then leaves the server running for the web report. Every run
starts from an empty data folder, so it shows the same report each time; Ctrl-C stops everything
it started.

Options:
  --exit-after          stop after printing (also JOBSIGHT_DEMO_EXIT=1)
  --history-lines <n>   import only the first n jobs of the trace
  --port <n>            HTTP port (default 8080; 0 picks a free one, as does a busy 8080)
  --data-dir <dir>      data folder, emptied at each run (default <repo>/.jobsight/demo)
`;

const CLUSTER = "demo";
const NODE = "gpu-a01";
// Sixteen minutes of the jobs' lives, one reading a minute: enough for the usage rules (10 min).
// 14 rounds 2 min apart, then the epilog's final reading: the jobs ran for exactly 30 min, the
// walltime limit of the job that times out.
const ROUNDS = 14;
const STEP_SECONDS = 120;
const RUN_MS = (ROUNDS + 1) * STEP_SECONDS * 1000;
const DEFAULT_PORT = 8080;

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "exit-after": { type: "boolean" },
      "history-lines": { type: "string" },
      port: { type: "string" },
      "data-dir": { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const exitAfter = values["exit-after"] || process.env.JOBSIGHT_DEMO_EXIT === "1";
  const historyLines = values["history-lines"] ? Number(values["history-lines"]) : undefined;
  const root = repoRoot();
  const defaultDataDir = join(root, ".jobsight", "demo");
  const dataDir = resolve(values["data-dir"] ?? defaultDataDir);
  const p = new DemoProgress();
  // First: from here on, Ctrl-C stops whatever has been started.
  const shutdown = new DemoShutdown({ line: (t) => p.line(t) });
  p.line("Jobsight demo");
  try {
    const server = await p.step(
      "server started (embedded PostgreSQL, local objects, OTLP receivers, intelligence plane live)",
      async () => {
        await prepareDemoDataDir(dataDir, { isDefault: dataDir === defaultDataDir });
        // Runs last: whatever else failed to stop, no PostgreSQL on our folder outlives the demo.
        shutdown.add(() => stopDemoPostgres(dataDir));
        const port = values.port ? Number(values.port) : (await isFree(DEFAULT_PORT)) ? DEFAULT_PORT : 0;
        const starting = startDemoServer({ dataDir, cluster: CLUSTER, port });
        // A start still under way when Ctrl-C comes is let finish, then closed.
        shutdown.add(async () => (await starting.catch(() => undefined))?.close());
        return starting;
      },
      (s) => `${s.url}, OTLP/gRPC ${s.otlpGrpcUrl}, fresh data in ${dataDir}`,
    );
    // The generated node and the trace's head live with the run's data: nothing outside it to clean.
    const tmp = join(dataDir, "work");
    mkdirSync(tmp, { recursive: true });
    const api = new DemoApi(server.url, server.platformToken);
    await p.step(
      "cluster registered",
      async () => {
        const known = await api.call<{ clusters: { id: string }[] }>("GET", "/v1/clusters");
        if (!JSON.stringify(known).includes(`"${CLUSTER}"`))
          await api.call("POST", "/v1/clusters", {
            id: CLUSTER,
            name: "Demo GPU cluster",
            scheduler: "slurm",
          });
        return CLUSTER;
      },
      (c) => c,
    );

    const node = await p.step(
      "node generated (cgroup v2 tree, /proc, recorded nvidia-smi, kernel log)",
      async () => new DemoNode(join(tmp, "node")),
      () => `${NODE}: ${DEMO_JOBS.map((j) => `${j.jobId} ${j.role}`).join(", ")}`,
    );
    const now = Date.now();
    const times = {
      cluster: CLUSTER,
      node: NODE,
      submittedAt: now - RUN_MS - 10 * 60_000,
      startedAt: now - RUN_MS - 60_000,
      // When the collector takes its final readings (the jobs' epilogs), on the node's clock.
      endedAt: now - 60_000,
    };
    await p.step(
      "jobs submitted and started (REST /v1/jobs)",
      async () => {
        const r = demoJobRecords(times);
        await api.call("POST", "/v1/jobs", { records: r.submitted });
        await api.call("POST", "/v1/jobs", { records: r.started });
        return r.started.length;
      },
      (n) => `${n} jobs`,
    );

    await p.step(
      "collector ran in node mode",
      () => {
        const abort = new AbortController();
        const collecting = runDemoCollector({
          repoRoot: root,
          node,
          cluster: CLUSTER,
          nodeName: NODE,
          restUrl: server.url,
          otlpGrpcUrl: server.otlpGrpcUrl,
          token: server.collectorToken,
          firstRoundAt: times.startedAt + STEP_SECONDS * 1000,
          rounds: ROUNDS,
          stepSeconds: STEP_SECONDS,
          signal: abort.signal,
        });
        // Before the server closes: its nvidia-smi ends and its spool is closed.
        shutdown.add(async () => {
          abort.abort();
          await collecting.catch(() => {});
        });
        return collecting;
      },
      (c) =>
        `${c.rounds} rounds ${STEP_SECONDS} s apart on the node's clock, ${c.jobs} jobs, ${c.records} records in ${c.batches} batches through ${c.transport}`,
    );
    await p.step(
      "jobs ended (OUT_OF_MEMORY, TIMEOUT, COMPLETED x2)",
      async () => {
        const r = demoJobRecords(times);
        await api.call("POST", "/v1/jobs", { records: r.ended });
        return r.ended.length;
      },
      (n) => `${n} records`,
    );

    const trace = join(root, "data", "traces", "LANL-CM5-1994-4.1-cln.swf.gz");
    await p.step(
      "history imported (LANL-CM5 1994, Parallel Workloads Archive)",
      () =>
        importDemoHistory({
          storage: server.app.storage,
          file: trace,
          cluster: CLUSTER,
          lines: historyLines,
          tmpDir: tmp,
          onProgress: (t) => p.line(t),
        }),
      (r) =>
        `${r.imported} jobs imported, ${r.skipped} already there, ${r.badLines} bad lines${historyLines ? ` (first ${historyLines} lines)` : ""}`,
    );
    await p.step(
      "model trained",
      async () => {
        await server.service.refresh();
        let shown = "";
        const report = await server.service.train({
          trigger: "demo",
          onProgress: (phase, done) => {
            // A line per phase is enough to show it moves.
            if (phase !== shown) p.line(`    training: ${phase} (${done})`);
            shown = phase;
          },
        });
        await server.service.refresh();
        return report;
      },
      (r) =>
        r.trained
          ? `${r.version} on ${r.jobs} jobs, ${r.accepted ? "in service" : "kept the active model"}; resources: ${r.resources.join(", ")}`
          : `nothing trained: ${r.reason}`,
    );

    for (const file of ["job.sbatch", "pod.yaml"]) {
      const path = join(root, "examples", "demo", file);
      const run = await p.step(
        `prediction for examples/demo/${file} (jobsight predict)`,
        () =>
          runJobsightCli(
            root,
            ["predict", path, "--cluster", CLUSTER, "--user", "20"],
            server.url,
            server.platformToken,
          ),
        (r) => `exit ${r.code}`,
      );
      p.line(indent(run.stdout || run.stderr));
    }

    const problems = DEMO_JOBS.filter((j) => j.role !== "healthy");
    const diagnoses = await p.step(
      "diagnoses of the three problem jobs",
      async () => {
        const out: string[] = [];
        for (const job of problems) {
          const d = await api.call<Diagnosis>("GET", `/v1/jobs/${job.jobId}/diagnosis?cluster=${CLUSTER}`);
          out.push(describeDiagnosis(job.jobId, job.role, d));
        }
        return out;
      },
      () => `${problems.length} jobs`,
    );
    p.line(diagnoses.join("\n"));

    const report = `${server.url}/report/#token=${server.platformToken}`;
    p.line(`\nWeb report: ${report}`);
    for (const job of problems)
      p.line(
        `  job ${job.jobId} (${job.role}): ${server.url}/report/jobs.html?id=${job.jobId}&cluster=${CLUSTER}#token=${server.platformToken}`,
      );
    p.line(`Demo ready in ${p.elapsedSeconds().toFixed(0)} s.`);
  } catch (error) {
    // A step that fails because Ctrl-C is closing what it uses is the stop's doing, not a fault.
    if (shutdown.stopping) return new Promise<never>(() => {});
    await shutdown.stop("Stopped after the failure below.");
    throw error;
  }
  if (exitAfter) {
    await shutdown.stop("Stopped (--exit-after).");
    return 0;
  }
  p.line("Server running; press Ctrl-C to stop.");
  // The shutdown closes everything and exits 0.
  return new Promise<never>(() => {});
}

/** Whether `port` on 127.0.0.1 is free to listen on now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`jobsight demo failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
