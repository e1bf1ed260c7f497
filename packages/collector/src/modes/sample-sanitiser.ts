import type { UsageSample } from "@jobsight/schemas/light";

// The node collector checks its samples with this small function instead of the schema
// validator: loading @jobsight/schemas at run time costs ~15 MB resident on every node, and the
// readers already produce the right shapes. What it guards against is a kernel file with a value
// the schema cannot take (negative, not a number): such a field is dropped, never the sample.

const nonNegativeInteger = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;
const nonNegative = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;

// Index loops and no rewrite of a value that is already an integer: the collector runs without
// the optimising compiler (`--max-opt=1`), where each for-of step and each Math.round result is
// an allocation, and this runs for every field of every sample every round.
function clean(
  o: Record<string, unknown>,
  integers: readonly string[],
  numbers: readonly string[],
  percents: readonly string[] = [],
): number {
  let dropped = 0;
  for (let i = 0; i < integers.length; i++) {
    const k = integers[i];
    const v = o[k];
    if (v === undefined) continue;
    if (!nonNegativeInteger(v)) {
      delete o[k];
      dropped++;
    } else if (!Number.isInteger(v)) o[k] = Math.round(v as number);
  }
  for (let i = 0; i < numbers.length; i++) {
    const k = numbers[i];
    if (o[k] !== undefined && !nonNegative(o[k])) {
      delete o[k];
      dropped++;
    }
  }
  for (let i = 0; i < percents.length; i++) {
    const k = percents[i];
    const v = o[k];
    if (v === undefined) continue;
    if (!nonNegative(v)) {
      delete o[k];
      dropped++;
    } else if ((v as number) > 100) o[k] = 100;
  }
  return dropped;
}

const memoryInts = [
  "currentBytes",
  "peakBytes",
  "limitBytes",
  "anonBytes",
  "fileBytes",
  "shmemBytes",
  "swapBytes",
  "oomEvents",
  "oomKillEvents",
] as const;
const cpuNumbers = [
  "usageSeconds",
  "userSeconds",
  "systemSeconds",
  "throttledSeconds",
  "limitCores",
  "nodeLoad1",
] as const;
const cpuInts = ["periods", "throttledPeriods", "threads", "runnableThreads", "nodeRunnable"] as const;
const ioInts = ["readBytes", "writeBytes", "readOps", "writeOps"] as const;
const pressure = ["cpuSome", "memorySome", "memoryFull", "ioSome", "ioFull"] as const;

/**
 * Make a sample fit the UsageSample schema's numeric rules in place (non-negative integers for
 * bytes and counts, non-negative seconds, percentages within 0–100). Returns the number of fields
 * dropped; a required field that cannot be kept drops its whole group (e.g. `memory`).
 *
 * @example
 * ```ts
 * const dropped = sanitiseSample(sample);
 * ```
 */
export function sanitiseSample(sample: UsageSample): number {
  let dropped = 0;
  if (sample.memory) {
    dropped += clean(sample.memory, memoryInts, []);
    if (sample.memory.currentBytes === undefined) delete sample.memory;
  }
  if (sample.cpu) {
    dropped += clean(sample.cpu, cpuInts, cpuNumbers);
    if (sample.cpu.usageSeconds === undefined) delete sample.cpu;
  }
  if (sample.io) {
    dropped += clean(sample.io, ioInts, []);
    if (sample.io.readBytes === undefined || sample.io.writeBytes === undefined) delete sample.io;
  }
  if (sample.pids !== undefined && !nonNegativeInteger(sample.pids)) {
    delete sample.pids;
    dropped++;
  }
  if (sample.pressure) dropped += clean(sample.pressure, [], [], pressure);
  if (sample.gpus) {
    sample.gpus = sample.gpus.filter((g) => {
      dropped += clean(g, ["memoryUsedBytes", "memoryTotalBytes"], ["powerWatts"], ["utilizationPercent"]);
      return (
        g.memoryUsedBytes !== undefined &&
        g.utilizationPercent !== undefined &&
        Number.isInteger(g.index) &&
        g.index >= 0
      );
    });
    if (sample.gpus.length === 0) delete sample.gpus;
    else if (sample.gpus.length > 64) sample.gpus = sample.gpus.slice(0, 64);
  }
  if (sample.processes) {
    sample.processes = sample.processes
      .filter((p) => p.pid >= 1 && nonNegativeInteger(p.rssBytes))
      .slice(0, 32);
    if (sample.processes.length === 0) delete sample.processes;
  }
  return dropped;
}
