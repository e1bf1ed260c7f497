import { SourceFormatError } from "../errors.js";
import { readSmallFile } from "../util/read-small-file.js";

/** What `/proc/loadavg` says about the whole node at one instant. */
export type LoadAverage = {
  /** Load averaged over 1, 5 and 15 minutes: tasks in state R or D (uninterruptible sleep). */
  load1: number;
  load5: number;
  load15: number;
  /** Scheduling entities (threads) in state R now, the reading thread included (`nr_running()`). */
  running: number;
  /** Scheduling entities that exist now (`nr_threads`). */
  total: number;
};

// `fs/proc/loadavg.c`: "%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d\n"; the last pid is -1 in a
// pid namespace that has not forked yet.
const LOADAVG = /^(\d+\.\d{2}) (\d+\.\d{2}) (\d+\.\d{2}) (\d+)\/(\d+) -?\d+\n?$/;

/**
 * Parse `/proc/loadavg` as the kernel prints it. Throws a {@link SourceFormatError}
 * (`SOURCE_MALFORMED`) for anything else, rather than guess at a node's load.
 *
 * @example
 * ```ts
 * parseLoadAverage("0.75 0.60 0.52 3/412 12345\n"); // { load1: 0.75, …, running: 3, total: 412 }
 * ```
 */
export function parseLoadAverage(text: string, path = "/proc/loadavg"): LoadAverage {
  const m = LOADAVG.exec(text);
  if (!m) {
    throw new SourceFormatError(
      path,
      `expected "<1m> <5m> <15m> <running>/<total> <last pid>" as the kernel writes it, got ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  return {
    load1: Number(m[1]),
    load5: Number(m[2]),
    load15: Number(m[3]),
    running: Number(m[4]),
    total: Number(m[5]),
  };
}

/**
 * Read `<procRoot>/loadavg`. Undefined when the file is missing or unreadable (a procfs without
 * it); a {@link SourceFormatError} when it does not read as the kernel writes it.
 *
 * @example
 * ```ts
 * readLoadAverage("/proc")?.load1; // 0.75
 * ```
 */
export function readLoadAverage(procRoot: string): LoadAverage | undefined {
  const path = `${procRoot}/loadavg`;
  const text = readSmallFile(path, 256);
  return text === undefined ? undefined : parseLoadAverage(text, path);
}
