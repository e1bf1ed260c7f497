// One `jobsight backtest --json` run in a child process, its report written to disk whole or not at
// all. Shared by accuracy-report.mjs and leave-one-trace-out.mjs.
//
//   const report = await runBacktest("data/traces/x.swf.gz", ".accuracy/x.json", { settings: "s.json" });
//   stopBacktests(); // in a `finally`: ends the backtests still running after a failure
import { spawn } from "node:child_process";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The built server's entry point, whose `backtest` command is run; `pnpm build` makes it. */
export const SERVER_ENTRY = join(
  resolve(dirname(fileURLToPath(import.meta.url)), "..", ".."),
  "packages",
  "server",
  "dist",
  "main.js",
);

/** How much of a quiet backtest's stderr is kept to show when it fails. */
const STDERR_TAIL = 4000;

/** The backtests started here and still running. */
const running = new Set();

/**
 * Runs `node SERVER backtest TRACE --json [--settings FILE]`, parses its stdout as the JSON report
 * and writes that text to `out` through `out.partial` and a rename, so a report on disk is always a
 * finished one (a failed or unparsable run leaves neither file).
 *
 * @example
 * const report = await runBacktest(join(traces, "LANL.swf.gz"), join(reports, "LANL.json"), {
 *   settings: join(temp, "looser.json"),
 *   label: "backtest of LANL.swf.gz for candidate looser",
 *   showProgress: false,
 * });
 *
 * @param {string} trace the SWF trace to backtest
 * @param {string} out where the report goes
 * @param {object} [options]
 * @param {string} [options.settings] a JSON file of the model's settings, passed as `--settings`; without it the
 *   backtest runs on its defaults and no `--settings` is passed
 * @param {string} [options.label] how errors name this backtest; `backtest of TRACE` by default
 * @param {boolean} [options.showProgress] true (the default): the child's stderr, its progress, goes straight to
 *   this process's; false: only its last 4,000 characters are kept, and written to stderr if the
 *   backtest fails (several backtests at once would interleave their progress)
 * @param {string} [options.server] the script run with this Node as `SCRIPT backtest ...`; SERVER_ENTRY by default
 *   (tests point it at a stand-in)
 * @returns {Promise<any>} the parsed report; rejects with an Error naming the backtest when it cannot
 *   start, exits other than 0 (with the code or the signal), prints what is not JSON, or the report
 *   cannot be written
 */
export function runBacktest(trace, out, options = {}) {
  const { settings, label = `backtest of ${trace}`, showProgress = true, server = SERVER_ENTRY } = options;
  return new Promise((resolvePromise, reject) => {
    const args = [server, "backtest", trace, "--json"];
    if (settings !== undefined) args.push("--settings", settings);
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", showProgress ? "inherit" : "pipe"],
    });
    running.add(child);
    const chunks = [];
    let errors = "";
    child.stdout.on("data", (c) => chunks.push(c));
    child.stderr?.on("data", (c) => {
      errors = (errors + c).slice(-STDERR_TAIL);
    });
    child.on("error", (error) => {
      running.delete(child);
      reject(new Error(`${label}: ${error.message}`));
    });
    // `close`, not `exit`: stdout may still hold data when the process has exited.
    child.on("close", (code, signal) => {
      running.delete(child);
      if (code !== 0) {
        if (errors) process.stderr.write(errors);
        return reject(new Error(`${label} exited with ${code ?? signal}`));
      }
      const partial = `${out}.partial`;
      try {
        const text = Buffer.concat(chunks).toString("utf8");
        const report = JSON.parse(text);
        writeFileSync(partial, text);
        renameSync(partial, out);
        resolvePromise(report);
      } catch (error) {
        rmSync(partial, { force: true });
        reject(new Error(`${label}: ${error.message}`));
      }
    });
  });
}

/**
 * Ends (SIGTERM) every backtest started by runBacktest that is still running; their promises reject
 * with `exited with SIGTERM`. Returns how many were signalled.
 *
 * @example
 * try {
 *   await Promise.all(traces.map((t) => runBacktest(t, `${t}.json`)));
 * } finally {
 *   stopBacktests();
 * }
 *
 * @returns {number}
 */
export function stopBacktests() {
  const children = [...running];
  for (const child of children) child.kill();
  return children.length;
}
