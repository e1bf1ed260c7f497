import { slurmRecord } from "./build-record.js";
import { buildSeries, GIB, MIB, wobble } from "./build-samples.js";
import { oomKillEvent } from "./kernel-events.js";
import { devShmScenario } from "./oom-dev-shm-scenario.js";
import type { DiagnosisScenario } from "./scenario.js";

const SBATCH_TRAIN = `#!/bin/bash
#SBATCH --job-name=embed-corpus
#SBATCH --mem=32G
#SBATCH --cpus-per-task=8
#SBATCH --time=08:00:00
module load python/3.11
srun python embed_corpus.py --shards /scratch/alice/corpus --out /scratch/alice/emb
`;

/** A Python job whose heap grows until the job's 32 GiB cgroup limit kills it. */
function heapLeak(): DiagnosisScenario {
  const start = "2026-11-03T09:00:00Z";
  const samples = buildSeries({
    cluster: "hpc1",
    jobId: "5101",
    node: "cn041",
    user: "alice",
    start,
    intervalSeconds: 30,
    count: 103,
    memoryLimitBytes: 32 * GIB,
    shape: (i) => {
      const current = 2 * GIB + 29.7 * GIB * (i / 102) + wobble(i) * 50 * MIB;
      const file = 1 * GIB + wobble(i, 2) * 20 * MIB;
      const anon = current - file - 180 * MIB;
      return {
        memory: { current, anon, file, shmem: 64 * MIB },
        cores: 5.6 + wobble(i, 3) * 0.3,
        pids: 14,
        pressure: { cpuSome: 4, memorySome: i > 95 ? 18 : 0.5, ioSome: 1 },
        processes: [
          { pid: 48213, command: "python", rssBytes: Math.round(anon - 350 * MIB), state: "R" },
          { pid: 48290, command: "python", rssBytes: 310 * MIB, state: "S" },
          { pid: 48200, command: "bash", rssBytes: 4 * MIB, state: "S" },
        ],
      };
    },
    final: {
      at: "2026-11-03T09:52:10Z",
      shape: {
        memory: {
          current: 190 * MIB,
          anon: 20 * MIB,
          file: 150 * MIB,
          shmem: 0,
          peak: 32 * GIB,
          oomKills: 1,
        },
        cores: 0.2,
      },
    },
  });
  const record = slurmRecord({
    jobId: "5101",
    user: "alice",
    node: "cn041",
    jobName: "embed-corpus",
    executable: "embed_corpus.py",
    requested: { memoryBytes: 32 * GIB, cores: 8, walltimeSeconds: 8 * 3600, nodes: 1 },
    submittedAt: "2026-11-03T08:41:17Z",
    startedAt: start,
    endedAt: "2026-11-03T09:52:06Z",
    outcome: { state: "OUT_OF_MEMORY", exitCode: 0 },
    steps: [
      { stepId: "batch", state: "OUT_OF_MEMORY", maxRssBytes: 34_140_000_000, elapsedSeconds: 3126 },
      { stepId: "extern", state: "COMPLETED", exitCode: 0, elapsedSeconds: 3126 },
    ],
    peaks: { memoryBytes: 34_140_000_000, runTimeSeconds: 3126 },
  });
  return {
    name: "oom-heap-leak",
    description: "A Python job's heap grows steadily until the job's 32 GiB cgroup limit kills it.",
    input: {
      record,
      samples,
      events: [
        oomKillEvent({
          cluster: "hpc1",
          node: "cn041",
          time: "2026-11-03T09:52:04Z",
          pid: 48213,
          name: "python",
          totalVmKb: 41_234_560,
          anonRssKb: 33_449_574,
          fileRssKb: 10_240,
          shmemRssKb: 0,
          uid: 1000,
          pgtablesKb: 65_100,
          memcg: "/system.slice/slurmstepd.scope/job_5101",
          taskMemcg: "/system.slice/slurmstepd.scope/job_5101/step_batch/user/task_0",
        }),
      ],
      logLines: [
        {
          source: "slurm-output",
          line: "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=5101.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.",
        },
      ],
      submission: SBATCH_TRAIN,
      sourcesSeen: {},
    },
    expect: {
      findings: ["oom_kill"],
      unseen: [],
      causeDetermined: true,
      claims: {
        oom_kill: [
          "killed for exceeding its memory",
          "the job's cgroup limit",
          "anonymous memory (heap)",
          "climbed steadily",
          "python (pid 48213",
        ],
      },
      neverClaims: ["fell between two samples", "/dev/shm)"],
    },
  };
}

/** A job whose memory sits at a third of its limit and then spikes past it between two samples. */
function spikeBetweenSamples(): DiagnosisScenario {
  const start = "2026-11-05T22:10:00Z";
  const samples = buildSeries({
    cluster: "hpc1",
    jobId: "5230",
    node: "cn017",
    user: "bob",
    start,
    intervalSeconds: 30,
    count: 80,
    memoryLimitBytes: 64 * GIB,
    shape: (i) => {
      const anon = 19.5 * GIB + wobble(i) * 400 * MIB;
      const file = 1.4 * GIB;
      return {
        memory: { current: anon + file + 0.1 * GIB, anon, file, shmem: 30 * MIB },
        cores: 7.2 + wobble(i, 5) * 0.4,
        pids: 11,
        processes: [{ pid: 77120, command: "assemble", rssBytes: Math.round(anon - 200 * MIB), state: "R" }],
      };
    },
    final: {
      at: "2026-11-05T22:50:20Z",
      shape: {
        memory: {
          current: 150 * MIB,
          anon: 10 * MIB,
          file: 120 * MIB,
          shmem: 0,
          peak: 64 * GIB,
          oomKills: 1,
        },
      },
    },
  });
  const record = slurmRecord({
    jobId: "5230",
    user: "bob",
    node: "cn017",
    jobName: "assemble-chr7",
    executable: "assemble",
    requested: { memoryBytes: 64 * GIB, cores: 8, walltimeSeconds: 6 * 3600, nodes: 1 },
    submittedAt: "2026-11-05T21:58:02Z",
    startedAt: start,
    endedAt: "2026-11-05T22:50:14Z",
    outcome: { state: "OUT_OF_MEMORY", exitCode: 0 },
    steps: [
      { stepId: "batch", state: "FAILED", exitCode: 0, elapsedSeconds: 2414 },
      { stepId: "0", state: "OUT_OF_MEMORY", maxRssBytes: 22_400_000_000, elapsedSeconds: 2410 },
    ],
  });
  return {
    name: "oom-spike-between-samples",
    description:
      "Memory holds at ~21 GiB, then one allocation takes it past the 64 GiB limit between two 30 s samples.",
    input: {
      record,
      samples,
      events: [
        oomKillEvent({
          cluster: "hpc1",
          node: "cn017",
          time: "2026-11-05T22:50:12Z",
          jobId: "5230",
          pid: 77120,
          name: "assemble",
          totalVmKb: 70_112_004,
          anonRssKb: 66_912_256,
          fileRssKb: 8_192,
          shmemRssKb: 0,
          uid: 1001,
          pgtablesKb: 131_300,
          memcg: "/system.slice/slurmstepd.scope/job_5230",
          taskMemcg: "/system.slice/slurmstepd.scope/job_5230/step_0/user/task_0",
        }),
      ],
      sourcesSeen: { kernelLog: true },
    },
    expect: {
      findings: ["oom_kill"],
      // Samples without PSI or thread counts: whether threads queued for a core is not known.
      unseen: ["cpu-contention"],
      causeDetermined: true,
      claims: { oom_kill: ["fell between two samples", "assemble (pid 77120"] },
      neverClaims: ["climbed steadily"],
    },
  };
}

/** SLURM without cgroups: jobacct polling sees the batch step over its memory and SIGKILLs it. */
function slurmPollingKill(): DiagnosisScenario {
  const start = "2026-11-06T08:00:00Z";
  const samples = buildSeries({
    cluster: "hpc1",
    jobId: "6120",
    node: "cn003",
    start,
    intervalSeconds: 30,
    count: 14,
    procOnly: true,
    shape: (i) => {
      const current = 1.2 * GIB + 7.1 * GIB * (i / 13);
      return {
        memory: { current },
        cores: 1.9,
        processes: [{ pid: 20311, command: "Rscript", rssBytes: Math.round(current - 20 * MIB), state: "R" }],
      };
    },
  });
  const record = slurmRecord({
    jobId: "6120",
    user: "erin",
    node: "cn003",
    jobName: "fit-models",
    executable: "fit_models.R",
    requested: { memoryBytes: 8 * GIB, cores: 4, walltimeSeconds: 2 * 3600, nodes: 1 },
    submittedAt: "2026-11-06T07:59:40Z",
    startedAt: start,
    endedAt: "2026-11-06T08:07:12Z",
    outcome: { state: "FAILED", exitCode: 0, signal: 9 },
    steps: [
      { stepId: "batch", state: "CANCELLED", signal: 9, maxRssBytes: 9_234_567_168, elapsedSeconds: 432 },
      { stepId: "extern", state: "COMPLETED", exitCode: 0, elapsedSeconds: 432 },
    ],
    peaks: { memoryBytes: 9_234_567_168, runTimeSeconds: 432 },
  });
  return {
    name: "oom-slurm-polling",
    description:
      "SLURM without the cgroup plugin: jobacct polling finds the batch step above --mem=8G, kills it with signal 9, the job ends FAILED 0:9.",
    input: {
      record,
      samples,
      events: [],
      logLines: [
        {
          source: "slurm-output",
          line: "slurmstepd: error: StepId=6120.batch exceeded memory limit (9234567168 > 8589934592), being killed",
        },
      ],
      sourcesSeen: { kernelLog: true },
    },
    expect: {
      findings: ["oom_kill"],
      unseen: ["memory-stat", "final-reading", "cpu-contention"],
      causeDetermined: true,
      claims: { oom_kill: ["step batch", "climbed steadily", "Rscript (pid 20311"] },
      neverClaims: ["anonymous memory (heap)"],
    },
  };
}

/** The out-of-memory scenarios. */
export const oomScenarios: readonly DiagnosisScenario[] = [
  heapLeak(),
  devShmScenario(),
  spikeBetweenSamples(),
  slurmPollingKill(),
];
