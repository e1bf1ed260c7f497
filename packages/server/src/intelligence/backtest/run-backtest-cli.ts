import { parseArgs } from "node:util";
import type { ResourceName } from "../history-job.js";
import { renderReport } from "./report.js";
import { runBacktest } from "./run-backtest.js";

// `npx tsx run-backtest-cli.ts <trace> [--format swf] [--window 0.3] [--json]`
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    format: { type: "string", default: "swf" },
    window: { type: "string", default: "0.3" },
    json: { type: "boolean", default: false },
    retrain: { type: "string" },
    resources: { type: "string" },
  },
});
const trace = positionals[0];
if (!trace || values.format !== "swf") {
  process.stderr.write(
    "usage: run-backtest-cli <trace.swf[.gz]> [--format swf] [--window 0.3] [--json] [--resources memory,walltime] [--retrain days]\n",
  );
  process.exit(2);
}
const window = Number(values.window);
const tty = process.stderr.isTTY;
const report = await runBacktest({
  trace,
  window,
  resources: values.resources ? (values.resources.split(",") as ResourceName[]) : undefined,
  retrainEverySeconds: values.retrain ? Number(values.retrain) * 86_400 : undefined,
  onProgress: (phase, done) => {
    const width = 30;
    const bar = "#".repeat(Math.round(done * width)).padEnd(width, ".");
    const line = `[${bar}] ${(100 * done).toFixed(0).padStart(3)}% ${phase}`;
    if (tty) process.stderr.write(`\r${line.padEnd(60)}`);
    else process.stderr.write(`${line}\n`);
  },
});
if (tty) process.stderr.write("\n");
process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
