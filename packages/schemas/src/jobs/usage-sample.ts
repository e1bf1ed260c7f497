import { type Static, Type } from "@sinclair/typebox";
import { Bytes, ClusterId, IdempotencyKey, Name, Timestamp } from "../common.js";

const Seconds = (description: string) =>
  Type.Number({ minimum: 0, description: `${description} (seconds).` });
const Percent = (description: string) =>
  Type.Number({ minimum: 0, maximum: 100, description: `${description} (%).` });

/** Memory of a job's cgroup at one instant. */
export const MemoryUsage = Type.Object(
  {
    currentBytes: Bytes("memory.current: memory in use now"),
    peakBytes: Type.Optional(Bytes("memory.peak: high-water mark since the cgroup was created")),
    limitBytes: Type.Optional(Bytes("memory.max: the limit, absent when unlimited")),
    anonBytes: Type.Optional(Bytes("memory.stat anon: heap and other anonymous memory")),
    fileBytes: Type.Optional(Bytes("memory.stat file: page cache")),
    shmemBytes: Type.Optional(Bytes("memory.stat shmem: shared memory and tmpfs such as /dev/shm")),
    swapBytes: Type.Optional(Bytes("memory.swap.current")),
    oomEvents: Type.Optional(
      Type.Integer({ minimum: 0, description: "memory.events oom: times the limit was hit (cumulative)." }),
    ),
    oomKillEvents: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "memory.events oom_kill: processes killed by the OOM killer (cumulative).",
      }),
    ),
  },
  { additionalProperties: false, description: "Memory of the job's cgroup." },
);

/** CPU of a job's cgroup (cumulative counters from cpu.stat). */
export const CpuUsage = Type.Object(
  {
    usageSeconds: Seconds("cpu.stat usage_usec: CPU time used since the cgroup was created"),
    userSeconds: Type.Optional(Seconds("cpu.stat user_usec")),
    systemSeconds: Type.Optional(Seconds("cpu.stat system_usec")),
    periods: Type.Optional(Type.Integer({ minimum: 0, description: "cpu.stat nr_periods (cumulative)." })),
    throttledPeriods: Type.Optional(
      Type.Integer({ minimum: 0, description: "cpu.stat nr_throttled (cumulative)." }),
    ),
    throttledSeconds: Type.Optional(Seconds("cpu.stat throttled_usec (cumulative)")),
    limitCores: Type.Optional(
      Type.Number({ minimum: 0, description: "cpu.max quota / period, absent when unlimited." }),
    ),
    threads: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "Threads of the job's processes: num_threads (field 20) of /proc/<pid>/stat, summed.",
      }),
    ),
    runnableThreads: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Threads of the job in state R (running, or waiting for a core) at the sample's instant: field 3 of /proc/<pid>/task/<tid>/stat, counted over every thread. Absent when not every thread could be read.",
      }),
    ),
    nodeLoad1: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          "The node's 1-minute load average (field 1 of /proc/loadavg): tasks running, waiting for a core or in uninterruptible sleep (state D), averaged. Present only when the collector saw this job alone on the node (exclusive), so the load is the job's.",
      }),
    ),
    nodeRunnable: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Tasks of the node in state R (running, or waiting for a core) at the sample's instant: field 4 of /proc/loadavg before the slash, less the collector's own reading thread. Present only when the collector saw this job alone on the node (exclusive).",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "CPU of the job's cgroup, its threads from /proc and, when the job is alone on its node, the node's load.",
  },
);

/** Block I/O of a job's cgroup (cumulative, summed over devices from io.stat). */
export const IoUsage = Type.Object(
  {
    readBytes: Bytes("io.stat rbytes summed over devices"),
    writeBytes: Bytes("io.stat wbytes summed over devices"),
    readOps: Type.Optional(Type.Integer({ minimum: 0, description: "io.stat rios." })),
    writeOps: Type.Optional(Type.Integer({ minimum: 0, description: "io.stat wios." })),
  },
  { additionalProperties: false, description: "Block I/O of the job's cgroup." },
);

/** Pressure stall information (the avg10 figures of cpu.pressure, memory.pressure, io.pressure). */
export const PressureStall = Type.Object(
  {
    cpuSome: Type.Optional(Percent("cpu.pressure some avg10")),
    memorySome: Type.Optional(Percent("memory.pressure some avg10")),
    memoryFull: Type.Optional(Percent("memory.pressure full avg10")),
    ioSome: Type.Optional(Percent("io.pressure some avg10")),
    ioFull: Type.Optional(Percent("io.pressure full avg10")),
  },
  { additionalProperties: false, description: "Pressure stall information, avg10 percentages." },
);

/** The MIG instance a GPU reading is of, when it is one instance of a GPU split by MIG. */
export const MigInstance = Type.Object(
  {
    gpuInstanceId: Type.Integer({
      minimum: 0,
      description: "The GPU instance id (NVML's, DCGM's GPU_I_ID), unique within the parent GPU.",
    }),
    profile: Type.Optional(Name("The instance's profile, e.g. 1g.5gb (DCGM's GPU_I_PROFILE).", 64)),
    uuid: Type.Optional(Name("The MIG device's own UUID, e.g. MIG-c6d4f1ef-…, when known.", 128)),
  },
  {
    additionalProperties: false,
    description:
      "Set when the reading is of one MIG instance; index, uuid and pciBusId are then its parent GPU's.",
  },
);

/** One GPU used by the job at one instant (from nvidia-smi / NVML), or one MIG instance of a GPU. */
export const GpuUsage = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: "GPU index on the node (a MIG instance's parent)." }),
    uuid: Type.Optional(Name("GPU UUID, e.g. GPU-5f3c… (a MIG instance's parent).", 128)),
    pciBusId: Type.Optional(Name("PCI bus id, e.g. 00000000:3B:00.0.", 64)),
    utilizationPercent: Percent("utilization.gpu"),
    memoryUsedBytes: Bytes("memory.used"),
    memoryTotalBytes: Type.Optional(Bytes("memory.total")),
    powerWatts: Type.Optional(Type.Number({ minimum: 0, description: "power.draw (W)." })),
    temperatureCelsius: Type.Optional(Type.Number({ description: "temperature.gpu (°C)." })),
    mig: Type.Optional(MigInstance),
  },
  { additionalProperties: false, description: "One GPU, or one MIG instance of a GPU, at one instant." },
);

/** A process of the job worth naming: a top memory holder or one stuck in state D. */
export const ProcessSnapshot = Type.Object(
  {
    pid: Type.Integer({ minimum: 1, description: "Process id." }),
    command: Name("Command name (/proc/<pid>/comm).", 256),
    rssBytes: Bytes("Resident set size"),
    state: Type.String({
      minLength: 1,
      maxLength: 1,
      description: "State letter from /proc/<pid>/stat, e.g. R, S, D.",
    }),
  },
  { additionalProperties: false, description: "A notable process of the job." },
);

/** How far the job has got through its own work, as the job itself counts it (steps, epochs, files). */
export const JobProgress = Type.Object(
  {
    done: Type.Number({ minimum: 0, description: "Units of work done so far (cumulative)." }),
    total: Type.Number({ exclusiveMinimum: 0, description: "Units of work the job has to do in all." }),
    unit: Type.Optional(Name("What a unit of work is, e.g. step, epoch, file.", 64)),
  },
  {
    additionalProperties: false,
    description:
      "Progress the job reports of its own work; the walltime-overrun alert projects the job's end from it and stays silent without it.",
  },
);
export type JobProgress = Static<typeof JobProgress>;

/**
 * What one job used on one node at one instant. Cumulative counters (CPU, I/O) are as read; rates
 * are derived by the reader.
 */
export const UsageSample = Type.Object(
  {
    cluster: ClusterId,
    jobId: Name("The scheduler's job id.", 256),
    node: Name("Node (host) name.", 256),
    step: Type.Optional(
      Name("SLURM step (batch, extern, 0, …) or container name; absent for the whole job.", 128),
    ),
    time: Timestamp,
    user: Type.Optional(Name("Owner of the job, when the collector knows it.", 128)),
    memory: Type.Optional(MemoryUsage),
    cpu: Type.Optional(CpuUsage),
    io: Type.Optional(IoUsage),
    pids: Type.Optional(Type.Integer({ minimum: 0, description: "pids.current: tasks in the cgroup." })),
    pressure: Type.Optional(PressureStall),
    gpus: Type.Optional(Type.Array(GpuUsage, { maxItems: 64, description: "The job's GPUs." })),
    progress: Type.Optional(JobProgress),
    processes: Type.Optional(
      Type.Array(ProcessSnapshot, {
        maxItems: 32,
        description: "Top memory holders and processes in state D.",
      }),
    ),
    final: Type.Optional(
      Type.Boolean({ description: "True for the last reading taken when the job ended (epilog)." }),
    ),
  },
  {
    $id: "UsageSample",
    additionalProperties: false,
    description: "What one job used on one node at one instant.",
  },
);
export type UsageSample = Static<typeof UsageSample>;

/** A batch of samples as the collector ships it. */
export const UsageBatch = Type.Object(
  {
    idempotencyKey: IdempotencyKey,
    samples: Type.Array(UsageSample, { maxItems: 50_000, description: "The samples." }),
  },
  { $id: "UsageBatch", additionalProperties: false, description: "A batch of usage samples." },
);
export type UsageBatch = Static<typeof UsageBatch>;
