import { existsSync } from "node:fs";
import { OpenFileCache } from "../util/open-file-cache.js";
import {
  flatKey,
  flatKeyedValue,
  flatKeyedValueIn,
  parseCpuMax,
  parseIoStat,
  parseMaxValue,
  parseSingleValue,
  pressureAvg10,
} from "./cgroup-formats.js";
import type { CgroupReader, CgroupUsage } from "./cgroup-usage.js";

const usec = (v: number | undefined) => (v === undefined ? undefined : v / 1e6);
const clampPercent = (v: number | undefined) => (v === undefined ? undefined : Math.min(100, Math.max(0, v)));

const ANON = flatKey("anon");
const FILE = flatKey("file");
const SHMEM = flatKey("shmem");
type MemoryStat = { anon?: number; file?: number; shmem?: number };
const memoryStat = (bytes: Buffer): MemoryStat => ({
  anon: flatKeyedValueIn(bytes, ANON),
  file: flatKeyedValueIn(bytes, FILE),
  shmem: flatKeyedValueIn(bytes, SHMEM),
});

function defined<T extends Record<string, unknown>>(o: T): T {
  // for-in, not Object.keys: no key array and no iterator steps to allocate per object.
  for (const k in o) if (o[k] === undefined) delete o[k];
  return o;
}

/** Options of {@link CgroupV2Reader}. */
export type CgroupV2ReaderOptions = {
  /** Keep interface files open between rounds and re-read them with pread (one system call per file). @default true */
  keepOpen?: boolean;
  /** Most files kept open. @default 8192 */
  maxOpenFiles?: number;
};

/**
 * Reads one job's cgroup v2 directory: `memory.current`, `memory.peak`, `memory.max`,
 * `memory.events`, `memory.stat`, `memory.swap.current`, `cpu.stat`, `cpu.max`, `io.stat`,
 * `pids.current` and the three PSI files. Files are read directly (no process is spawned); a file
 * a kernel does not offer is left out; a cgroup that vanished mid-read yields `undefined`.
 *
 * Where `memory.peak` is missing (kernels before 5.19) the largest `memory.current` seen by this
 * reader stands in for it.
 *
 * @example
 * ```ts
 * const reader = new CgroupV2Reader();
 * const usage = reader.read("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42");
 * console.log(usage?.memory?.currentBytes, usage?.cpu?.usageSeconds);
 * ```
 */
export class CgroupV2Reader implements CgroupReader {
  private readonly largest = new Map<string, number>();
  private readonly files: OpenFileCache;

  constructor(options: CgroupV2ReaderOptions = {}) {
    this.files = new OpenFileCache({ maxOpen: options.keepOpen === false ? 0 : options.maxOpenFiles });
  }

  read(dir: string): CgroupUsage | undefined {
    const f = (name: string) => this.files.read(dir, name);
    const currentText = f("memory.current");
    const cpuStatText = f("cpu.stat");
    if (currentText === undefined && cpuStatText === undefined && !existsSync(dir)) return undefined;

    const usage: CgroupUsage = {};
    const current = currentText === undefined ? undefined : parseSingleValue(currentText);
    if (current !== undefined) {
      const seen = Math.max(this.largest.get(dir) ?? 0, current);
      this.largest.set(dir, seen);
      const peakText = f("memory.peak");
      const peak = peakText === undefined ? undefined : parseSingleValue(peakText);
      const maxText = f("memory.max");
      const limit = maxText === undefined ? undefined : parseMaxValue(maxText);
      // Three keys of ~50 lines: taken from the bytes, the text is never made a string.
      const stat = this.files.scan(dir, "memory.stat", memoryStat);
      const swapText = f("memory.swap.current");
      const events = f("memory.events");
      usage.memory = defined({
        currentBytes: current,
        peakBytes: peak ?? seen,
        limitBytes: limit ?? undefined,
        anonBytes: stat?.anon,
        fileBytes: stat?.file,
        shmemBytes: stat?.shmem,
        swapBytes: swapText === undefined ? undefined : parseSingleValue(swapText),
        oomEvents: events === undefined ? undefined : flatKeyedValue(events, "oom"),
        oomKillEvents: events === undefined ? undefined : flatKeyedValue(events, "oom_kill"),
      });
    }

    if (cpuStatText !== undefined) {
      const stat = (key: string) => flatKeyedValue(cpuStatText, key);
      const usageUsec = stat("usage_usec");
      if (usageUsec !== undefined) {
        const maxText = f("cpu.max");
        const limit = maxText === undefined ? undefined : parseCpuMax(maxText);
        usage.cpu = defined({
          usageSeconds: usageUsec / 1e6,
          userSeconds: usec(stat("user_usec")),
          systemSeconds: usec(stat("system_usec")),
          periods: stat("nr_periods"),
          throttledPeriods: stat("nr_throttled"),
          throttledSeconds: usec(stat("throttled_usec")),
          limitCores: limit ?? undefined,
        });
      }
    }

    const ioText = f("io.stat");
    if (ioText !== undefined) {
      const io = parseIoStat(ioText);
      usage.io = { readBytes: io.rbytes, writeBytes: io.wbytes, readOps: io.rios, writeOps: io.wios };
    }

    const pidsText = f("pids.current");
    const pids = pidsText === undefined ? undefined : parseSingleValue(pidsText);
    if (pids !== undefined) usage.pids = pids;

    const cpuP = f("cpu.pressure");
    const memP = f("memory.pressure");
    const ioP = f("io.pressure");
    const avg = (text: string | undefined, kind: "some" | "full") =>
      text === undefined ? undefined : clampPercent(pressureAvg10(text, kind));
    const pressure = defined({
      cpuSome: avg(cpuP, "some"),
      memorySome: avg(memP, "some"),
      memoryFull: avg(memP, "full"),
      ioSome: avg(ioP, "some"),
      ioFull: avg(ioP, "full"),
    });
    if (Object.keys(pressure).length > 0) usage.pressure = pressure;

    // Files read fine up to the moment the job ended: treat what was read as not trustworthy.
    if (currentText === undefined && !existsSync(dir)) return undefined;
    return usage;
  }

  forget(dir: string): void {
    this.largest.delete(dir);
    this.files.closeDir(dir);
  }

  /** Close every file kept open. */
  close(): void {
    this.files.closeAll();
  }
}
