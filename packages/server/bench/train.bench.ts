// Trains the full model (every resource with usage) on LANL-CM5 and reports time and peak memory,
// measured as the server trains: bundled like dist/ (no tsx in the process), the GBDT worker beside
// the bundle, and the heap limits of the training threads (training-heap.ts) as node flags.
// Run: npx tsx packages/server/bench/train.bench.ts [trace]
import { spawnSync } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import { TRAINING_SEMI_SPACE_FLAG } from "../src/intelligence/training/training-heap.js";

const here = import.meta.dirname;
const trace = process.argv[2] ?? join(here, "../../../data/traces/LANL-CM5-1994-4.1-cln.swf.gz");
// Inside the package, so the bundle resolves its dependencies from node_modules as dist/ does.
const out = join(here, "..", "node_modules", ".cache", `train-bench-${process.pid}`);
await mkdir(out, { recursive: true });
try {
  await build({
    entryPoints: {
      "train-models": join(here, "train-models.ts"),
      "gbdt-worker": join(here, "../src/intelligence/training/gbdt-worker.ts"),
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outdir: out,
    logLevel: "warning",
  });
  const run = spawnSync(process.execPath, [TRAINING_SEMI_SPACE_FLAG, join(out, "train-models.js"), trace], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.stdout.write(run.stdout ?? "");
  if (run.status !== 0) process.exitCode = 1;
} finally {
  await rm(out, { recursive: true, force: true });
}
