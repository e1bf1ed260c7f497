// Collector benchmark: CPU time and resident memory per node-mode collection round with 200
// running jobs on a generated cgroup v2 tree (3 processes per job in a generated /proc).
// The rounds run in a child `node` process on the built package (dist/), so the figures are the
// collector's own. Run: pnpm --filter @jobsight/collector build && npx tsx packages/collector/bench/collector.bench.ts
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CgroupTree } from "../src/test-support/cgroup-tree.js";
import { ProcTree } from "../src/test-support/proc-tree.js";

const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const INTERVAL_S = 10;
const MiB = 1024 * 1024;
const dist = join(import.meta.dirname, "..", "dist", "index.js");
if (!existsSync(dist)) {
  console.error("build the collector first: pnpm --filter @jobsight/collector build");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "jobsight-bench-"));
const tree = new CgroupTree();
const proc = new ProcTree();
try {
  for (let j = 0; j < JOBS; j++) {
    const id = String(100_000 + j);
    tree.slurmJob(id, {
      memoryCurrent: (j + 1) * 10 * MiB,
      memoryPeak: (j + 2) * 10 * MiB,
      steps: ["extern", "batch"],
    });
    for (let p = 0; p < 3; p++) {
      proc.add({
        pid: 10_000 + j * 3 + p,
        comm: p === 0 ? "bash" : "python",
        rssBytes: (p + 1) * 50 * MiB,
        cgroup: `0::/system.slice/slurmstepd.scope/job_${id}/step_batch/user/task_0\n`,
      });
    }
  }
  for (let p = 0; p < 100; p++) proc.add({ pid: 100 + p, comm: "kworker" });

  // Run the rounds the way the installed command runs: same environment and V8 flags as the
  // `#!/usr/bin/env -S …` line of the built CLI, so the figures cannot drift from what ships.
  const shebang = readFileSync(join(import.meta.dirname, "..", "dist", "cli.js"), "utf8").split("\n")[0];
  const words = shebang
    .replace(/^#!\S*env\s+(-S\s+)?/, "")
    .split(/\s+/)
    .filter(Boolean);
  const envAssignments = Object.fromEntries(
    words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split("=")),
  );
  const nodeFlags = words.filter((w) => w.startsWith("--"));
  const child = spawnSync(
    process.execPath,
    [
      ...nodeFlags,
      join(import.meta.dirname, "measure-rounds.mjs"),
      tree.root,
      proc.root,
      join(work, "spool"),
      String(ROUNDS),
    ],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...envAssignments, NODE_OPTIONS: "" },
    },
  );
  if (child.status !== 0) throw new Error(`measurement failed (exit ${child.status})`);
  const result = JSON.parse(child.stdout.trim().split("\n").pop()!) as {
    jobs: number;
    cpu: number[];
    rss: number;
    heapTrims: number;
  };
  if (result.jobs !== JOBS) throw new Error(`expected ${JOBS} jobs, saw ${result.jobs}`);
  const cpu = [...result.cpu].sort((a, b) => a - b);
  const median = cpu[Math.floor(cpu.length / 2)];
  const p95 = cpu[Math.min(cpu.length - 1, Math.floor(cpu.length * 0.95))];
  // The mean counts the full collection node mode runs every few rounds, which the median can hide.
  const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
  console.log(
    `BENCH collector value=${((median / INTERVAL_S) * 100).toFixed(3)} unit=%core rss_mb=${(result.rss / MiB).toFixed(1)} jobs=${JOBS} interval_s=${INTERVAL_S} round_cpu_ms_median=${(median * 1000).toFixed(1)} round_cpu_ms_p95=${(p95 * 1000).toFixed(1)} round_cpu_ms_mean=${(mean * 1000).toFixed(1)} heap_trims=${result.heapTrims}`,
  );
} finally {
  tree.cleanup();
  proc.cleanup();
  rmSync(work, { recursive: true, force: true });
}
