import { parseArgs } from "node:util";
import type { ResourceName } from "@jobsight/schemas";
import { ConfigError } from "../../../config/config-error.js";
import { type BacktestSettings, readBacktestSettings } from "./backtest-settings.js";
import { openPredictionFile, type PredictionFile } from "./prediction-lines.js";
import { renderReport } from "./report.js";
import { runBacktest } from "./run-backtest.js";

const USAGE =
  "usage: jobsight backtest <trace.swf[.gz]> [--format swf] [--window 0.3] [--json] [--resources memory,walltime] [--retrain days] [--predictions FILE] [--settings FILE]\n" +
  "  --settings FILE  the model's settings as JSON (trees, maxDepth, upperQuantile, maxTrainingRows,\n" +
  "                   calibrationShare, maxCalibration, minUserJobs, conformal: {missRate, ...});\n" +
  "                   absent fields keep their defaults, and the JSON report repeats them\n";

/**
 * `jobsight backtest`: replays a trace under the evaluation protocol (no look-ahead, last `window`
 * of jobs evaluated) and prints the report, as a table or as JSON. Returns the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runBacktestCommand(["LANL-CM5-1994-4.1-cln.swf.gz", "--json"]);
 * ```
 */
export async function runBacktestCommand(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const trace = positionals[0];
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!trace) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (values.format !== "swf") {
    process.stderr.write(
      `--format ${values.format}: only Standard Workload Format traces can be backtested so far\n`,
    );
    return 2;
  }
  const window = Number(values.window);
  if (!(window > 0 && window < 1)) {
    process.stderr.write(`--window ${values.window}: must be a fraction between 0 and 1\n`);
    return 2;
  }
  let settings: BacktestSettings | undefined;
  try {
    settings = values.settings === undefined ? undefined : readBacktestSettings(values.settings);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const noun = error.issues.length === 1 ? "problem" : "problems";
    const lines = error.issues.map((i) => `  ${i.path}: ${i.message}\n`).join("");
    process.stderr.write(`--settings ${values.settings}: ${error.issues.length} ${noun}\n${lines}`);
    return 2;
  }
  let predictions: PredictionFile | undefined;
  try {
    predictions = values.predictions ? openPredictionFile(values.predictions) : undefined;
  } catch (error) {
    process.stderr.write(`--predictions ${values.predictions}: ${(error as Error).message}\n`);
    return 2;
  }
  const tty = process.stderr.isTTY;
  let lastShown = -1;
  const report = await runBacktest({
    trace,
    window,
    resources: values.resources ? (values.resources.split(",") as ResourceName[]) : undefined,
    retrainEverySeconds: values.retrain ? Number(values.retrain) * 86_400 : undefined,
    training: settings,
    onPrediction: predictions?.sink,
    onProgress: (phase, done) => {
      const percent = Math.round(100 * done);
      // On a terminal the bar redraws in place; in a log, one line per 10%.
      if (!tty && Math.floor(percent / 10) === Math.floor(lastShown / 10)) return;
      lastShown = percent;
      const width = 30;
      const bar = "#".repeat(Math.round(done * width)).padEnd(width, ".");
      const line = `[${bar}] ${String(percent).padStart(3)}% ${phase}`;
      process.stderr.write(tty ? `\r${line.padEnd(60)}` : `${line}\n`);
    },
  });
  if (tty) process.stderr.write("\n");
  await predictions?.close();
  // The report says which configuration produced it; absent, the defaults.
  if (settings) report.settings = settings;
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  return 0;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "string", default: "swf" },
      window: { type: "string", default: "0.3" },
      json: { type: "boolean", default: false },
      retrain: { type: "string" },
      resources: { type: "string" },
      predictions: { type: "string" },
      settings: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
}
