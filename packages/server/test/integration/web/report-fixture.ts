import type { JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas";

const GIB = 2 ** 30;
const MIB = 2 ** 20;
const CLUSTER = "hpc1";

/** The job the screenshot shows: a 2-GPU training run that uses one GPU and is OOM-killed. */
export const SHOWCASE = { cluster: CLUSTER, jobId: "7001", node: "gpu07" };

const START = Date.UTC(2026, 11, 1, 10, 0, 0);
const INTERVAL_S = 30;
const SAMPLES = 99;
const LIMIT = 64 * GIB;
const OOM_AT = START + 2980 * 1000;

const at = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
// Deterministic jitter so the lines look like readings, not rulers.
const wobble = (i: number, phase = 0) => Math.sin(i * 1.7 + phase) * 0.5 + Math.sin(i * 0.31 + phase) * 0.5;

/** Memory in use at sample `i`: a steady working set, then a leak that runs into the limit. */
function memoryAt(i: number): number {
  const t = i / (SAMPLES - 1);
  const base = 11 * GIB + 2.5 * GIB * t + wobble(i) * 300 * MIB;
  const leak = t < 0.62 ? 0 : (LIMIT - 13.6 * GIB) * ((t - 0.62) / 0.38) ** 1.6;
  return Math.round(Math.min(base + leak, LIMIT - 40 * MIB));
}

/** The showcase job's whole-job samples every 30 s on one node, and the epilog's final reading. */
export function showcaseSamples(): UsageSample[] {
  const samples: UsageSample[] = [];
  let cpu = 0;
  let peak = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const time = START + (i + 1) * INTERVAL_S * 1000;
    cpu += INTERVAL_S * (10.5 + wobble(i, 2) * 1.2);
    const current = memoryAt(i);
    peak = Math.max(peak, current);
    const file = 1.2 * GIB + wobble(i, 1) * 40 * MIB;
    samples.push({
      cluster: CLUSTER,
      jobId: SHOWCASE.jobId,
      node: SHOWCASE.node,
      time: at(time),
      user: "alice",
      memory: {
        currentBytes: current,
        peakBytes: peak,
        limitBytes: LIMIT,
        anonBytes: Math.round(current - file - 200 * MIB),
        fileBytes: Math.round(file),
        shmemBytes: 64 * MIB,
        oomEvents: 0,
        oomKillEvents: 0,
      },
      cpu: { usageSeconds: cpu },
      pids: 38,
      pressure: { cpuSome: 3, memorySome: i > 92 ? 22 : 0.4, ioSome: 1 },
      gpus: [
        {
          index: 0,
          uuid: "GPU-5f3c2a10-7d1e-4c8b-9a61-0c1d2e3f4a5b",
          pciBusId: "00000000:3B:00.0",
          utilizationPercent: Math.round(86 + wobble(i, 3) * 8),
          memoryUsedBytes: Math.round(28 * GIB + wobble(i, 4) * 200 * MIB),
          memoryTotalBytes: 80 * GIB,
          powerWatts: 290,
          temperatureCelsius: 61,
        },
        {
          index: 1,
          uuid: "GPU-8a9b0c1d-2e3f-4a5b-8c7d-e9f0a1b2c3d4",
          pciBusId: "00000000:86:00.0",
          utilizationPercent: 0,
          memoryUsedBytes: 0,
          memoryTotalBytes: 80 * GIB,
          powerWatts: 62,
          temperatureCelsius: 34,
        },
      ],
      processes: [
        { pid: 48213, command: "python", rssBytes: Math.round(current - 1.9 * GIB), state: "R" },
        { pid: 48290, command: "pt_data_worker", rssBytes: 420 * MIB, state: "S" },
      ],
    });
  }
  samples.push({
    cluster: CLUSTER,
    jobId: SHOWCASE.jobId,
    node: SHOWCASE.node,
    time: at(OOM_AT + 10_000),
    user: "alice",
    memory: { currentBytes: 190 * MIB, peakBytes: LIMIT, limitBytes: LIMIT, oomEvents: 1, oomKillEvents: 1 },
    cpu: { usageSeconds: cpu + 2 },
    final: true,
  });
  return samples;
}

/** The kernel's OOM-kill line for the showcase job, as the collector reads it from the kernel log. */
export function showcaseEvents(): NodeEvent[] {
  const anonKb = Math.round((LIMIT - 2.1 * GIB) / 1024);
  return [
    {
      cluster: CLUSTER,
      node: SHOWCASE.node,
      time: at(OOM_AT),
      kind: "oom_kill",
      jobId: SHOWCASE.jobId,
      oomKill: {
        pid: 48213,
        processName: "python",
        memoryCgroup: "/system.slice/slurmstepd.scope/job_7001",
        taskCgroup: "/system.slice/slurmstepd.scope/job_7001/step_batch/user/task_0",
        totalVmBytes: 91_234_567 * 1024,
        anonRssBytes: anonKb * 1024,
        fileRssBytes: 10_240 * 1024,
        shmemRssBytes: 65_536 * 1024,
        constraint: "CONSTRAINT_MEMCG",
      },
      message: `Memory cgroup out of memory: Killed process 48213 (python) total-vm:91234567kB, anon-rss:${anonKb}kB, file-rss:10240kB, shmem-rss:65536kB, UID:1001 pgtables:140312kB oom_score_adj:0`,
    },
  ];
}

/** The showcase job's record as the controller reports it once the job ended. */
export function showcaseRecord(): JobRecord {
  const runTime = (OOM_AT + 4000 - START) / 1000;
  return {
    cluster: CLUSTER,
    jobId: SHOWCASE.jobId,
    phase: "ended",
    source: "slurm-controller",
    spec: {
      cluster: CLUSTER,
      scheduler: "slurm",
      user: "alice",
      account: "ml-team",
      partition: "gpu",
      jobName: "finetune-llm",
      executable: "train.py",
      requested: { memoryBytes: LIMIT, cores: 16, gpus: 2, walltimeSeconds: 4 * 3600, nodes: 1 },
    },
    submittedAt: "2026-12-01T09:41:12Z",
    startedAt: at(START),
    endedAt: at(OOM_AT + 4000),
    outcome: { state: "OUT_OF_MEMORY", exitCode: 0, reason: "OutOfMemory" },
    nodes: [SHOWCASE.node],
    peaks: {
      memoryBytes: LIMIT,
      coresUsed: 10.5,
      gpusUsed: 1,
      gpuMemoryBytes: 28 * GIB,
      runTimeSeconds: runTime,
      cpuTimeSeconds: 10.5 * runTime,
    },
    steps: [
      {
        stepId: "batch",
        state: "OUT_OF_MEMORY",
        maxRssBytes: LIMIT,
        elapsedSeconds: runTime,
        memoryLimitBytes: LIMIT,
      },
      { stepId: "extern", state: "COMPLETED", exitCode: 0, elapsedSeconds: runTime },
    ],
  };
}

type Waster = {
  user: string;
  account: string;
  partition: string;
  memGib: number;
  peakGib: number;
  cores: number;
  coresUsed: number;
  gpus?: number;
  gpusUsed?: number;
  hours: number;
  wallHours: number;
};

const WASTERS: Waster[] = [
  {
    user: "bob",
    account: "physics",
    partition: "batch",
    memGib: 128,
    peakGib: 9,
    cores: 32,
    coresUsed: 30.5,
    hours: 6,
    wallHours: 24,
  },
  {
    user: "bob",
    account: "physics",
    partition: "batch",
    memGib: 128,
    peakGib: 11,
    cores: 32,
    coresUsed: 31,
    hours: 5.5,
    wallHours: 24,
  },
  {
    user: "carol",
    account: "chem",
    partition: "bigmem",
    memGib: 512,
    peakGib: 340,
    cores: 16,
    coresUsed: 4.2,
    hours: 3,
    wallHours: 12,
  },
  {
    user: "carol",
    account: "chem",
    partition: "bigmem",
    memGib: 512,
    peakGib: 355,
    cores: 16,
    coresUsed: 4,
    hours: 2.5,
    wallHours: 12,
  },
  {
    user: "dave",
    account: "ml-team",
    partition: "gpu",
    memGib: 96,
    peakGib: 60,
    cores: 12,
    coresUsed: 6,
    gpus: 4,
    gpusUsed: 1,
    hours: 8,
    wallHours: 48,
  },
  {
    user: "dave",
    account: "ml-team",
    partition: "gpu",
    memGib: 96,
    peakGib: 58,
    cores: 12,
    coresUsed: 6.5,
    gpus: 4,
    gpusUsed: 1,
    hours: 7,
    wallHours: 48,
  },
  {
    user: "erin",
    account: "bio",
    partition: "batch",
    memGib: 16,
    peakGib: 14.5,
    cores: 8,
    coresUsed: 7.8,
    hours: 2,
    wallHours: 3,
  },
  {
    user: "erin",
    account: "bio",
    partition: "batch",
    memGib: 16,
    peakGib: 15.1,
    cores: 8,
    coresUsed: 7.7,
    hours: 2.2,
    wallHours: 3,
  },
  {
    user: "frank",
    account: "physics",
    partition: "short",
    memGib: 8,
    peakGib: 1.2,
    cores: 4,
    coresUsed: 1,
    hours: 0.5,
    wallHours: 4,
  },
];

/** Ended jobs of several users, accounts and partitions, some asking for far more than they use. */
export function wasteRecords(): JobRecord[] {
  return WASTERS.map((w, i) => {
    const started = Date.UTC(2026, 10, 28, 6 + i, 0, 0);
    const run = w.hours * 3600;
    return {
      cluster: CLUSTER,
      jobId: String(6100 + i),
      phase: "ended",
      source: "slurm-controller",
      spec: {
        cluster: CLUSTER,
        scheduler: "slurm",
        user: w.user,
        account: w.account,
        partition: w.partition,
        executable: `${w.account}-sim`,
        requested: {
          memoryBytes: w.memGib * GIB,
          cores: w.cores,
          walltimeSeconds: w.wallHours * 3600,
          ...(w.gpus ? { gpus: w.gpus } : {}),
        },
      },
      submittedAt: at(started - 600_000),
      startedAt: at(started),
      endedAt: at(started + run * 1000),
      outcome: { state: "COMPLETED", exitCode: 0 },
      peaks: {
        memoryBytes: Math.round(w.peakGib * GIB),
        coresUsed: w.coresUsed,
        cpuTimeSeconds: w.coresUsed * run,
        runTimeSeconds: run,
        ...(w.gpus ? { gpusUsed: w.gpusUsed } : {}),
      },
    };
  });
}
