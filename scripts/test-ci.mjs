#!/usr/bin/env node
// CI entry point: runs every vitest project (or whatever the extra arguments select) on this
// machine's Node and again on Node 24 LTS, then a subset on Node 22 LTS (both fetched from the npm
// registry, see node-from-npm.mjs), with the default reporter streaming to the terminal and the
// JSON reporter writing a machine-readable copy per run. Node 22 runs, when no extra argument
// selects otherwise, the `unit` project and the packed-server test (the tarball installed with npm,
// its bin, embedded PostgreSQL): the parts that depend on the Node version, in about 7 minutes on a
// busy 2-core machine where the whole suite takes 17. At the end it prints a
// `Node vX: N passed, N failed` line per Node and, last, their sum:
// `N passed, N failed[, N skipped]`. A run that fails without a failed test (a file that does not
// load, a broken global setup, no test at all: a filter that matches nothing must not look green,
// nor a Node that could not be fetched, nor one left out after Ctrl-C) counts as one failure.
//
//   node scripts/test-ci.mjs                      # all projects on this Node and Node 24, the subset on 22
//   node scripts/test-ci.mjs --project unit       # extra arguments go to vitest unchanged, on every Node
//   JOBSIGHT_TEST_NODES=current node scripts/test-ci.mjs   # this Node only
//   JOBSIGHT_TEST_NODES=24 node scripts/test-ci.mjs        # Node 24 only ("current", "24", x.y.z)
//   JOBSIGHT_TEST_NODES=22 node scripts/test-ci.mjs        # the Node 22 subset only (x.y.z: all)
import { spawn } from "node:child_process";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NODE_22, NODE_24, nodeFromNpm } from "./node-from-npm.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const resultsDir = join(root, ".test-results");

const require = createRequire(join(root, "package.json"));
const vitestPackage = require.resolve("vitest/package.json");
const vitestBin = join(dirname(vitestPackage), require(vitestPackage).bin.vitest);

// Node 22 gets what differs between Node versions: all unit tests, and the server as a site installs it.
const NODE_22_SUBSET = [
  ["--project", "unit"],
  ["--project", "integration", "packages/server/test/integration/packaging/packed-server.test.ts"],
];

let interrupted = false;

/** Runs vitest under `node` with inherited stdio; resolves with its exit code (signals count as failure). */
function runVitest(node, args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(node, [vitestBin, ...args], { cwd: root, env, stdio: "inherit" });
    // Ctrl-C reaches the child through the process group; do not die before it has cleaned up,
    // and start no further run after it.
    const stop = () => {
      interrupted = true;
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    child.on("error", (error) => {
      console.error(`test-ci: could not start vitest: ${error.message}`);
      resolvePromise(1);
    });
    child.on("exit", (code, signal) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolvePromise(signal ? 1 : (code ?? 1));
    });
  });
}

/** Reads a JSON reporter output; `undefined` when vitest wrote none. */
async function readResults(file) {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * What to test: `[{ version, runs }]`, `runs` being the vitest arguments of each run on that Node.
 * `current` (this process) and `24` run the whole suite, `22` its subset, an exact version the
 * whole suite; extra arguments replace both. Each version once.
 */
function nodesToTest(extraArgs) {
  const asked = (process.env.JOBSIGHT_TEST_NODES ?? "current 24 22").split(/[\s,]+/).filter(Boolean);
  const named = { current: process.versions.node, 24: NODE_24, 22: NODE_22 };
  const plans = new Map();
  for (const name of asked) {
    const version = named[name] ?? name.replace(/^v/, "");
    const runs = extraArgs.length > 0 ? [extraArgs] : name === "22" ? NODE_22_SUBSET : [[]];
    if (!plans.has(version)) plans.set(version, { version, runs });
  }
  return [...plans.values()];
}

/** Counts of one Node's runs, summed; `failed` includes one failure for a run that failed without a failed test. */
async function testOn({ version, runs }) {
  const label = `Node v${version}`;
  const current = version === process.versions.node;
  let node = process.execPath;
  if (!current) {
    try {
      node = await nodeFromNpm(version);
    } catch (error) {
      console.error(`test-ci: ${label} could not be fetched: ${error.message}`);
      return { label, passed: 0, failed: 1, skipped: 0 };
    }
  }
  // Whatever the tests start by name (`node`, `npx`, shebangs) runs on the same Node.
  const env = current
    ? process.env
    : { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH}` };
  const sum = { label, passed: 0, failed: 0, skipped: 0, failures: [] };
  for (const [index, vitestArgs] of runs.entries()) {
    const outputFile = join(
      resultsDir,
      `vitest-node-${version}${runs.length > 1 ? `-${index + 1}` : ""}.json`,
    );
    let counts;
    if (interrupted) {
      console.error(`test-ci: interrupted; ${label} run ${index + 1} not started`);
      counts = { passed: 0, failed: 1, skipped: 0, failures: [] };
    } else {
      const what = vitestArgs.length > 0 ? `: ${vitestArgs.join(" ")}` : "";
      console.log(`\ntest-ci: ${label}${current ? " (this machine's)" : ` (${node})`}${what}\n`);
      counts = await countRun(label, node, env, vitestArgs, outputFile);
    }
    sum.passed += counts.passed;
    sum.failed += counts.failed;
    sum.skipped += counts.skipped;
    sum.failures.push(...(counts.failures ?? []));
  }
  return sum;
}

/** Counts of one vitest run; `failed` includes one failure for a run that failed without a failed test. */
async function countRun(label, node, env, vitestArgs, outputFile) {
  // A stale file from an earlier run must never be mistaken for this run's results.
  await rm(outputFile, { force: true });
  const exitCode = await runVitest(
    node,
    ["run", "--reporter=default", "--reporter=json", `--outputFile=${outputFile}`, ...vitestArgs],
    env,
  );

  const results = await readResults(outputFile);
  if (!results) {
    console.error(
      `test-ci: ${label}: vitest exited with code ${exitCode} and wrote no results to ${outputFile}`,
    );
    return { passed: 0, failed: 1, skipped: 0 };
  }
  // Counted from the per-test statuses so that skipped and todo tests are each counted once.
  const files = results.testResults ?? [];
  const statuses = files.flatMap((file) => (file.assertionResults ?? []).map((test) => test.status));
  const passed = statuses.filter((status) => status === "passed").length;
  let failed = statuses.filter((status) => status === "failed").length;
  const skipped = statuses.length - passed - failed;
  // Named again at the end of the log: CI often shows only its tail.
  const failures = files.flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((test) => test.status === "failed")
      .map((test) => {
        const message = (test.failureMessages ?? []).join(" ").replace(/\s+/g, " ").slice(0, 400);
        return `${relative(root, file.name)} > ${test.fullName}: ${message}`;
      }),
  );
  for (const file of files) {
    if (file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed")) {
      failures.push(
        `${relative(root, file.name)}: ${(file.message ?? "did not run").replace(/\s+/g, " ").slice(0, 400)}`,
      );
    }
  }
  // A file that fails to load or whose hooks throw has no failed test, only a failed file.
  const brokenFiles = files.filter(
    (file) => file.status === "failed" && !(file.assertionResults ?? []).some((t) => t.status === "failed"),
  ).length;
  if (brokenFiles > 0 || (failed === 0 && exitCode !== 0)) {
    const why = [`exit code ${exitCode}`];
    if (brokenFiles > 0) why.push(`${brokenFiles} file(s) failed to run`);
    if (statuses.length === 0) why.push("no test ran");
    console.error(`test-ci: ${label}: vitest failed (${why.join(", ")})`);
    failed += Math.max(brokenFiles, 1);
  } else if (passed === 0 && failed === 0) {
    console.error(`test-ci: ${label}: no test ran`);
    failed = 1;
  }
  return { passed, failed, skipped, failures };
}

async function main() {
  await mkdir(resultsDir, { recursive: true });
  const runs = [];
  for (const plan of nodesToTest(process.argv.slice(2))) {
    if (interrupted) {
      console.error(`test-ci: interrupted; Node v${plan.version} not run`);
      runs.push({ label: `Node v${plan.version}`, passed: 0, failed: 1, skipped: 0 });
    } else runs.push(await testOn(plan));
  }
  const line = (r) =>
    `${r.passed} passed, ${r.failed} failed${r.skipped > 0 ? `, ${r.skipped} skipped` : ""}`;
  console.log("");
  for (const r of runs) {
    for (const failure of r.failures ?? []) console.log(`FAILED on ${r.label}: ${failure}`);
  }
  for (const r of runs) console.log(`${r.label}: ${line(r)}`);
  const total = runs.reduce(
    (sum, r) => ({
      passed: sum.passed + r.passed,
      failed: sum.failed + r.failed,
      skipped: sum.skipped + r.skipped,
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );
  // Last, so CI logs and scripts can take the final line as the verdict.
  console.log(line(total));
  return total.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
