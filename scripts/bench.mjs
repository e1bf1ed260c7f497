#!/usr/bin/env node
// Runs the benchmarks: `pnpm bench` runs all, `pnpm bench <name>` one. Each benchmark is a
// `packages/*/bench/<name>.bench.ts` file run with tsx in its own process, so one benchmark's
// memory or JIT state never colours another's. Each prints a `BENCH <name> ratio=…` line.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const benches = [];
for (const pkg of readdirSync(join(root, "packages"))) {
  const dir = join(root, "packages", pkg, "bench");
  if (!existsSync(dir)) continue;
  for (const file of readdirSync(dir)) {
    if (file.endsWith(".bench.ts"))
      benches.push({ name: file.replace(/\.bench\.ts$/, ""), file: join(dir, file), pkg });
  }
}
const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
if (selected.length === 0) {
  console.error(`no benchmark named ${wanted.join(", ")}; have: ${benches.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
const lines = [];
let failed = 0;
for (const bench of selected) {
  console.log(`\n== ${bench.name} (${bench.pkg}) ==`);
  const tsx = join(root, "node_modules", ".bin", "tsx");
  const run = spawnSync(tsx, [bench.file], {
    cwd: join(root, "packages", bench.pkg),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc`.trim() },
  });
  process.stdout.write(run.stdout ?? "");
  const line = (run.stdout ?? "")
    .split("\n")
    .filter((l) => l.startsWith("BENCH "))
    .pop();
  if (run.status !== 0 || !line) {
    failed++;
    console.error(`benchmark ${bench.name} failed (exit ${run.status})`);
  } else lines.push(line);
}
console.log("\n== summary ==");
for (const line of lines) console.log(line);
process.exit(failed ? 1 : 0);
