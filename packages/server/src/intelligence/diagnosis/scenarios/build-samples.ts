import type { UsageSample } from "@jobsight/schemas";

/** A GPU as nvidia-smi names it. */
export interface GpuDevice {
  readonly index: number;
  readonly uuid: string;
  /** nvidia-smi's form, e.g. `00000000:3B:00.0`. */
  readonly pciBusId: string;
  readonly memoryTotalBytes: number;
}

/** What the job did during one sampling interval (rates) and at its end (levels). */
export interface SampleShape {
  readonly memory?: {
    readonly current: number;
    readonly anon?: number;
    /** memory.stat file: page cache including shmem. */
    readonly file?: number;
    readonly shmem?: number;
    /** A high-water mark above the running maximum of `current` (a spike between samples). */
    readonly peak?: number;
    readonly oomKills?: number;
  };
  /** Average cores busy over the interval ending at this sample. */
  readonly cores?: number;
  /** Share of the interval's CFS periods throttled (only with a CPU limit). */
  readonly throttledShare?: number;
  readonly readBytesPerSecond?: number;
  readonly pids?: number;
  /** Threads of the job's processes and those in state R at the sample's instant (from /proc). */
  readonly threads?: number;
  readonly runnableThreads?: number;
  /** The node's 1-minute load and tasks in state R (/proc/loadavg), sent for a job alone on its node. */
  readonly nodeLoad1?: number;
  readonly nodeRunnable?: number;
  readonly pressure?: UsageSample["pressure"];
  /** Utilisation (%) and memory in use per GPU, by GPU index. */
  readonly gpus?: readonly { readonly index: number; readonly util: number; readonly memoryUsed: number }[];
  readonly processes?: UsageSample["processes"];
}

/** How to build one node's series. */
export interface SeriesSpec {
  readonly cluster: string;
  readonly jobId: string;
  readonly node: string;
  readonly user?: string;
  /** The job's start; the first sample comes one interval later. */
  readonly start: string;
  readonly intervalSeconds: number;
  readonly count: number;
  /** memory.max of the job's cgroup, when set. */
  readonly memoryLimitBytes?: number;
  /** cpu.max quota in cores, when set (Kubernetes); enables the period counters. */
  readonly cpuLimitCores?: number;
  readonly gpus?: readonly GpuDevice[];
  /** The shape of sample `i` (0-based), `elapsed` seconds after the start. */
  readonly shape: (i: number, elapsed: number) => SampleShape;
  /**
   * From /proc only (no cgroups, as on SLURM without the cgroup plugin), as the collector's node
   * mode reads it: memory is the processes' summed resident sets and its running maximum, CPU their
   * summed times; no limit, breakdown, events, user/system split, I/O or pressure.
   */
  readonly procOnly?: boolean;
  /** The epilog's final reading, at `at`, with its own shape. */
  readonly final?: { readonly at: string; readonly shape: SampleShape };
}

const CFS_PERIODS_PER_SECOND = 10; // cpu.max period of 100 ms

/**
 * One node's samples as the collector produces them: levels as read, CPU, CFS-period and I/O
 * counters cumulative since the cgroup was created, memory.peak the running high-water mark.
 */
export function buildSeries(spec: SeriesSpec): UsageSample[] {
  const start = Date.parse(spec.start);
  const out: UsageSample[] = [];
  const state = {
    usage: 0,
    periods: 0,
    throttled: 0,
    throttledSeconds: 0,
    read: 0,
    write: 0,
    peak: 0,
    last: start,
  };
  const emit = (time: number, shape: SampleShape, final: boolean) => {
    const dt = (time - state.last) / 1000;
    state.last = time;
    const cores = shape.cores ?? 0;
    state.usage += cores * dt;
    state.read += Math.round((shape.readBytesPerSecond ?? 0) * dt);
    state.write += Math.round(cores * 2_000 * dt);
    if (spec.cpuLimitCores !== undefined) {
      const periods = Math.round(dt * CFS_PERIODS_PER_SECOND);
      const throttled = Math.round(periods * (shape.throttledShare ?? 0));
      state.periods += periods;
      state.throttled += throttled;
      state.throttledSeconds += throttled * 0.04;
    }
    const m = shape.memory;
    if (m) state.peak = Math.max(state.peak, m.current, m.peak ?? 0);
    const sample: UsageSample = {
      cluster: spec.cluster,
      jobId: spec.jobId,
      node: spec.node,
      time: new Date(time).toISOString().replace(".000Z", "Z"),
      ...(spec.user ? { user: spec.user } : {}),
      ...(m && spec.procOnly
        ? { memory: { currentBytes: Math.round(m.current), peakBytes: Math.round(state.peak) } }
        : {}),
      ...(m && !spec.procOnly
        ? {
            memory: {
              currentBytes: Math.round(m.current),
              peakBytes: Math.round(state.peak),
              ...(spec.memoryLimitBytes !== undefined ? { limitBytes: spec.memoryLimitBytes } : {}),
              ...(m.anon !== undefined ? { anonBytes: Math.round(m.anon) } : {}),
              ...(m.file !== undefined ? { fileBytes: Math.round(m.file) } : {}),
              ...(m.shmem !== undefined ? { shmemBytes: Math.round(m.shmem) } : {}),
              oomEvents: m.oomKills ?? 0,
              oomKillEvents: m.oomKills ?? 0,
            },
          }
        : {}),
      cpu: {
        usageSeconds: round6(state.usage),
        ...(spec.procOnly
          ? {}
          : { userSeconds: round6(state.usage * 0.93), systemSeconds: round6(state.usage * 0.07) }),
        ...(spec.cpuLimitCores !== undefined
          ? {
              periods: state.periods,
              throttledPeriods: state.throttled,
              throttledSeconds: round6(state.throttledSeconds),
              limitCores: spec.cpuLimitCores,
            }
          : {}),
        ...(shape.threads !== undefined ? { threads: shape.threads } : {}),
        ...(shape.runnableThreads !== undefined ? { runnableThreads: shape.runnableThreads } : {}),
        ...(shape.nodeLoad1 !== undefined ? { nodeLoad1: shape.nodeLoad1 } : {}),
        ...(shape.nodeRunnable !== undefined ? { nodeRunnable: shape.nodeRunnable } : {}),
      },
      ...(spec.procOnly ? {} : { io: { readBytes: state.read, writeBytes: state.write } }),
      ...(shape.pids !== undefined ? { pids: shape.pids } : {}),
      ...(shape.pressure ? { pressure: shape.pressure } : {}),
      ...(shape.gpus && spec.gpus ? { gpus: shape.gpus.map((g) => gpuReading(spec.gpus!, g)) } : {}),
      ...(shape.processes ? { processes: shape.processes } : {}),
      ...(final ? { final: true } : {}),
    };
    out.push(sample);
  };
  for (let i = 0; i < spec.count; i++) {
    const t = start + (i + 1) * spec.intervalSeconds * 1000;
    emit(t, spec.shape(i, (i + 1) * spec.intervalSeconds), false);
  }
  if (spec.final) emit(Date.parse(spec.final.at), spec.final.shape, true);
  return out;
}

function gpuReading(devices: readonly GpuDevice[], g: { index: number; util: number; memoryUsed: number }) {
  const d = devices.find((x) => x.index === g.index)!;
  const util = Math.round(Math.max(0, Math.min(100, g.util)));
  return {
    index: d.index,
    uuid: d.uuid,
    pciBusId: d.pciBusId,
    utilizationPercent: util,
    // nvidia-smi reports memory in MiB.
    memoryUsedBytes: Math.round(g.memoryUsed / MIB) * MIB,
    memoryTotalBytes: d.memoryTotalBytes,
    powerWatts: Math.round((62 + util * 3.3) * 100) / 100,
    temperatureCelsius: Math.round(33 + util * 0.36),
  };
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

export const MIB = 2 ** 20;
export const GIB = 2 ** 30;

/** A deterministic wobble in [-1, 1] for sample `i`, so series look measured rather than drawn. */
export function wobble(i: number, seed = 1): number {
  const x = Math.sin(i * 12.9898 + seed * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

/** An RFC 3339 time `seconds` after `start`. */
export function after(start: string, seconds: number): string {
  return new Date(Date.parse(start) + seconds * 1000).toISOString().replace(".000Z", "Z");
}

/** An A100 80GB as nvidia-smi reports it (81920 MiB). */
export function a100(index: number, pciBus: string): GpuDevice {
  return {
    index,
    uuid: `GPU-${(0x5f3c0a10 + index * 0x1111).toString(16)}-9b2e-4c1d-8a7f-3e6d2c1b0a${(90 + index).toString(16)}`,
    pciBusId: `00000000:${pciBus.toUpperCase()}:00.0`,
    memoryTotalBytes: 81920 * MIB,
  };
}
