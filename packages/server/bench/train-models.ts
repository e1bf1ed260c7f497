// The training of `train.bench.ts`, run as its own bundled process: trains the full model (every
// resource with usage) on a trace and prints time and peak memory.
import { loadSwfHistory } from "../src/intelligence/accuracy/backtest/swf-history-loader.js";
import { trainJobModels } from "../src/intelligence/training/train-job-models.js";

const trace = process.argv[2];
if (!trace) throw new Error("usage: train-models <trace.swf.gz>");
const { jobs } = await loadSwfHistory(trace);
const started = performance.now();
const cpu0 = process.cpuUsage();
const models = trainJobModels(jobs);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const peakRssMb = process.resourceUsage().maxRSS / 1024;
const rows = Object.entries(models).map(([name, m]) => ({
  resource: name,
  trainingJobs: m?.trainingJobs,
  censored: m?.censoredTrainingJobs,
  trees: (m?.centre.trees.length ?? 0) + (m?.upper.trees.length ?? 0),
  calibrationJobs: m?.calibration.examples,
  capAtRequest: m?.calibration.enforcedLimit,
}));
console.table(rows);
console.log(`wall ${seconds.toFixed(1)} s, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
console.log(
  `BENCH train value=${seconds.toFixed(2)} unit=s jobs=${jobs.length} peak_rss_mb=${peakRssMb.toFixed(0)} cpu_s=${((cpu.user + cpu.system) / 1e6).toFixed(1)}`,
);
