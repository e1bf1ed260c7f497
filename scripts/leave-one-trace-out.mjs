#!/usr/bin/env node
// Leave-one-trace-out check of the model's settings: `jobsight backtest --json --settings FILE` of
// every candidate configuration of a grid on every SWF trace of a folder, then, for each trace in
// turn, the candidate that meets the most targets on the other traces is chosen and judged,
// unchanged, on the trace left out (scripts/lib/leave-one-out.mjs); the result goes to Markdown.
//
//   pnpm build && node scripts/leave-one-trace-out.mjs --grid scripts/loto-grid.json [--traces ../shared/data]
//     [--reports .accuracy-loto] [--out docs/leave-one-trace-out.md] [--jobs 1]
//
// The grid is JSON: {"candidates": {"defaults": {}, "looser": {"conformal": {"missRate": 0.01}}}},
// each candidate's settings those of `jobsight backtest --settings` ({} is the defaults), in order
// of preference (an exact tie goes to the first). --reports DIR keeps each report as
// DIR/<candidate>/<trace>.json and reuses one already there (delete it to rerun that backtest), so a
// long run can be resumed; a kept report made with other settings than the grid's stops the run.
// --jobs N runs up to N backtests at once. A backtest that fails (settings the backtest refuses
// exit with 2 and their `path: message`) stops the run; the reports finished so far are kept.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { leaveOneTraceOut, renderLeaveOneOut } from "./lib/leave-one-out.mjs";
import { runBacktest, SERVER_ENTRY, stopBacktests } from "./lib/run-backtest.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fail = (message, code = 2) => {
  console.error(`leave-one-trace-out: ${message}`);
  process.exit(code);
};

let values;
try {
  ({ values } = parseArgs({
    options: {
      grid: { type: "string" },
      traces: { type: "string", default: join(root, "..", "shared", "data") },
      reports: { type: "string", default: join(root, ".accuracy-loto") },
      out: { type: "string", default: join(root, "docs", "leave-one-trace-out.md") },
      jobs: { type: "string", default: "1" },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (!values.grid) fail("--grid FILE is required (e.g. --grid scripts/loto-grid.json)");
const jobs = Number(values.jobs);
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs ${values.jobs}: must be a whole number ≥ 1`);

if (!existsSync(SERVER_ENTRY)) fail(`${SERVER_ENTRY} is missing; run pnpm build first`);

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** The grid's candidates in order, each `[name, settings]`; the settings themselves are checked by the backtest. */
function readGrid(file) {
  let grid;
  try {
    grid = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    fail(`--grid ${file}: ${error.message}`);
  }
  if (!isObject(grid) || !isObject(grid.candidates))
    fail(`--grid ${file}: must be {"candidates": {name: settings, ...}}`);
  const unknown = Object.keys(grid).filter((k) => k !== "candidates");
  if (unknown.length > 0) fail(`--grid ${file}: ${unknown[0]}: is not a known key (only candidates)`);
  const candidates = Object.entries(grid.candidates);
  if (candidates.length === 0) fail(`--grid ${file}: candidates: needs at least one candidate`);
  for (const [name, settings] of candidates) {
    // The name is a folder of --reports.
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
      fail(`--grid ${file}: candidates.${name}: the name must be letters, digits, . _ - (it names a folder)`);
    if (!isObject(settings)) fail(`--grid ${file}: candidates.${name}: must be an object of settings`);
  }
  return candidates;
}

/** JSON with sorted keys, to compare settings whatever their key order. */
const canonical = (v) =>
  isObject(v)
    ? `{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
        .join(",")}}`
    : JSON.stringify(v);

/** Runs `tasks` (functions returning promises), at most `limit` at once; the first failure stops new ones. */
async function pool(tasks, limit) {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < tasks.length) {
      try {
        await tasks[next++]();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

async function main() {
  const candidates = readGrid(values.grid);
  const traces = readdirSync(values.traces)
    .filter((f) => /\.swf(\.gz)?$/.test(f))
    .sort();
  if (traces.length < 2) fail(`${values.traces}: leaving one trace out needs at least two SWF traces`);
  const temp = mkdtempSync(join(tmpdir(), "jobsight-loto-"));
  const reports = new Map(candidates.map(([name]) => [name, new Map()]));
  const tasks = [];
  try {
    for (const [name, settings] of candidates) {
      mkdirSync(join(values.reports, name), { recursive: true });
      writeFileSync(join(temp, `${name}.json`), JSON.stringify(settings));
    }
    // Trace by trace, every candidate: the first trace's backtests, one per candidate, come first,
    // so settings the backtest refuses stop the run within the first trace.
    let done = 0;
    const total = traces.length * candidates.length;
    for (const trace of traces) {
      const key = trace.replace(/\.swf(\.gz)?$/, "");
      for (const [name, settings] of candidates) {
        const saved = join(values.reports, name, `${key}.json`);
        tasks.push(async () => {
          let report;
          if (existsSync(saved)) {
            report = JSON.parse(readFileSync(saved, "utf8"));
            if (canonical(report.settings ?? {}) !== canonical(settings)) {
              throw new Error(
                `${saved} was made with settings ${JSON.stringify(report.settings ?? {})}, not the grid's ` +
                  `${JSON.stringify(settings)}; delete it (or ${join(values.reports, name)}) to rerun`,
              );
            }
          } else {
            report = await runBacktest(join(values.traces, trace), saved, {
              settings: join(temp, `${name}.json`),
              label: `backtest of ${join(values.traces, trace)} for candidate ${name}`,
              // One backtest at a time shows its progress; several would interleave it.
              showProgress: jobs === 1,
            });
          }
          reports.get(name).set(key, report);
          console.error(`leave-one-trace-out: ${name} × ${trace} done (${++done}/${total})`);
        });
      }
    }
    await pool(tasks, jobs);
  } finally {
    stopBacktests();
    rmSync(temp, { recursive: true, force: true });
  }
  // In the grid's and the folder's order, whatever order the backtests finished in.
  const ordered = new Map(
    candidates.map(([name]) => [
      name,
      new Map(traces.map((t) => t.replace(/\.swf(\.gz)?$/, "")).map((t) => [t, reports.get(name).get(t)])),
    ]),
  );
  const result = leaveOneTraceOut(ordered);
  mkdirSync(dirname(resolve(values.out)), { recursive: true });
  writeFileSync(values.out, renderLeaveOneOut(result));
  console.error(
    `leave-one-trace-out: wrote ${values.out}; ` +
      (result.sameChoice ? `every fold chose ${result.choice}` : "the choice depends on the held-out trace") +
      `; held out, ${result.heldOut.met} of ${result.heldOut.checks} targets met`,
  );
}

main().catch((error) => {
  console.error(`leave-one-trace-out: ${error.message}`);
  process.exit(1);
});
