import type { JobOutcome, JobRecord, JobStep, UsageSample } from "@jobsight/schemas";
import { slurmRecord } from "./build-record.js";
import { after, buildSeries, type GpuDevice, MIB, type SampleShape, wobble } from "./build-samples.js";

/** A SLURM job that does the same thing all run long, with every knob a scenario turns. */
export interface SteadyJobSpec {
  readonly jobId: string;
  readonly node: string;
  readonly user: string;
  readonly jobName: string;
  readonly executable?: string;
  readonly partition?: string;
  readonly qos?: string;
  readonly start: string;
  readonly runSeconds: number;
  readonly intervalSeconds?: number;
  readonly cores: number;
  readonly coresUsed: number;
  readonly memoryBytes: number;
  /** Memory in use once warmed up (reached over the first ten minutes). */
  readonly memoryUsed: number;
  readonly walltimeSeconds?: number;
  readonly gpus?: readonly GpuDevice[];
  readonly gpuUtil?: number;
  readonly gpuMemoryUsed?: number;
  readonly outcome?: JobOutcome;
  readonly steps?: JobStep[];
  /** Whether the epilog's final reading arrives (a few seconds after the end). */
  readonly final?: boolean;
  /** Samples stop this many seconds after the start (a node that went silent). */
  readonly samplesUntilSeconds?: number;
  /** Turns the steady shape of sample `i` into the scenario's. */
  readonly shape?: (i: number, elapsed: number, base: SampleShape) => SampleShape;
}

/** The record and samples of a steady job. */
export function steadyJob(spec: SteadyJobSpec): { record: JobRecord; samples: UsageSample[] } {
  const interval = spec.intervalSeconds ?? 30;
  const end = after(spec.start, spec.runSeconds);
  const until = spec.samplesUntilSeconds ?? spec.runSeconds - 1;
  const pid = 4000 + (Number.parseInt(spec.jobId, 10) % 5000);
  const base = (i: number, elapsed: number): SampleShape => {
    const warm = Math.min(1, 0.6 + (0.4 * elapsed) / 600);
    const current = spec.memoryUsed * warm * (1 + wobble(i, 7) * 0.01);
    const anon = current * 0.9;
    return {
      memory: { current, anon, file: current * 0.1, shmem: 16 * MIB },
      cores: spec.coresUsed * (1 + wobble(i, 8) * 0.04),
      pids: 12,
      pressure: { cpuSome: 3, memorySome: 0, ioSome: 1 },
      ...(spec.gpus
        ? {
            gpus: spec.gpus.map((g) => ({
              index: g.index,
              util: (spec.gpuUtil ?? 90) + wobble(i, 9 + g.index) * 4,
              memoryUsed: spec.gpuMemoryUsed ?? 0,
            })),
          }
        : {}),
      processes: [
        {
          pid,
          command: spec.executable?.split(".")[0] ?? "app",
          rssBytes: Math.round(anon * 0.95),
          state: "R",
        },
      ],
    };
  };
  const shape = (i: number, elapsed: number) =>
    spec.shape ? spec.shape(i, elapsed, base(i, elapsed)) : base(i, elapsed);
  const count = Math.floor(until / interval);
  const samples = buildSeries({
    cluster: "hpc1",
    jobId: spec.jobId,
    node: spec.node,
    user: spec.user,
    start: spec.start,
    intervalSeconds: interval,
    count,
    memoryLimitBytes: spec.memoryBytes,
    gpus: spec.gpus,
    shape,
    ...(spec.final === false
      ? {}
      : {
          final: {
            at: after(spec.start, spec.runSeconds + 4),
            shape: finalShape(shape(count, spec.runSeconds)),
          },
        }),
  });
  const record = slurmRecord({
    jobId: spec.jobId,
    user: spec.user,
    node: spec.node,
    jobName: spec.jobName,
    executable: spec.executable,
    partition: spec.partition ?? (spec.gpus ? "gpu" : "compute"),
    qos: spec.qos,
    requested: {
      memoryBytes: spec.memoryBytes,
      cores: spec.cores,
      ...(spec.gpus ? { gpus: spec.gpus.length, gpuModel: "a100" } : {}),
      ...(spec.walltimeSeconds ? { walltimeSeconds: spec.walltimeSeconds } : {}),
      nodes: 1,
    },
    submittedAt: after(spec.start, -97),
    startedAt: spec.start,
    endedAt: end,
    outcome: spec.outcome ?? { state: "COMPLETED", exitCode: 0 },
    steps: spec.steps,
  });
  return { record, samples };
}

/**
 * The epilog's reading: the job's processes are gone (no threads counted), its GPUs (if still
 * visible) idle and empty.
 */
function finalShape(last: SampleShape): SampleShape {
  return {
    ...last,
    cores: 0.05,
    processes: undefined,
    threads: undefined,
    runnableThreads: undefined,
    nodeLoad1: undefined,
    nodeRunnable: undefined,
    gpus: last.gpus?.map((g) => ({ index: g.index, util: 0, memoryUsed: 0 })),
  };
}
