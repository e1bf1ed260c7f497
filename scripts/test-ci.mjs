#!/usr/bin/env node
// CI entry point: runs every vitest project (or whatever the extra arguments select) with the
// default reporter streaming to the terminal and the JSON reporter writing a machine-readable copy,
// then prints one summary line, `N passed, N failed[, N skipped]`, and fails the job when a test
// failed, when vitest itself failed (e.g. a file that does not load, a broken global setup), or when
// no test ran at all (a filter that matches nothing must not look green).
//
//   node scripts/test-ci.mjs                      # all projects
//   node scripts/test-ci.mjs --project unit       # extra arguments go to vitest unchanged
import { spawn } from "node:child_process";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outputFile = join(root, ".test-results", "vitest.json");

const require = createRequire(join(root, "package.json"));
const vitestPackage = require.resolve("vitest/package.json");
const vitestBin = join(dirname(vitestPackage), require(vitestPackage).bin.vitest);

/** Runs vitest with inherited stdio and resolves with its exit code (signals count as failure). */
function runVitest(args) {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [vitestBin, ...args], { cwd: root, stdio: "inherit" });
    // Ctrl-C reaches the child through the process group; do not die before it has cleaned up.
    const ignore = () => {};
    process.on("SIGINT", ignore);
    process.on("SIGTERM", ignore);
    child.on("error", (error) => {
      console.error(`test-ci: could not start vitest: ${error.message}`);
      resolvePromise(1);
    });
    child.on("exit", (code, signal) => {
      process.off("SIGINT", ignore);
      process.off("SIGTERM", ignore);
      resolvePromise(signal ? 1 : (code ?? 1));
    });
  });
}

/** Reads the JSON reporter output; `undefined` when vitest wrote none. */
async function readResults() {
  try {
    return JSON.parse(await readFile(outputFile, "utf8"));
  } catch {
    return undefined;
  }
}

async function main() {
  // A stale file from an earlier run must never be mistaken for this run's results.
  await rm(outputFile, { force: true });
  await mkdir(dirname(outputFile), { recursive: true });

  const exitCode = await runVitest([
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${outputFile}`,
    ...process.argv.slice(2),
  ]);

  const results = await readResults();
  if (!results) {
    console.error(`test-ci: vitest exited with code ${exitCode} and wrote no results to ${outputFile}`);
    console.log("0 passed, 0 failed");
    return 1;
  }

  // Counted from the per-test statuses so that skipped and todo tests are each counted once.
  const statuses = (results.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? []).map((test) => test.status),
  );
  const passed = statuses.filter((status) => status === "passed").length;
  const failed = statuses.filter((status) => status === "failed").length;
  const skipped = statuses.length - passed - failed;
  // A file that fails to load or whose hooks throw has no failed test, only a failed file.
  const failedFiles = (results.testResults ?? []).filter((file) => file.status === "failed").length;
  let code = 0;
  if (failed > 0) code = 1;
  else if (exitCode !== 0 || failedFiles > 0) {
    console.error(`test-ci: vitest failed (exit code ${exitCode}, ${failedFiles} failed file(s))`);
    code = exitCode || 1;
  } else if (passed === 0) {
    console.error("test-ci: no test ran");
    code = 1;
  }
  // Last, so CI logs and scripts can take the final line as the verdict.
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
  return code;
}

process.exitCode = await main();
