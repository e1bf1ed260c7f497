import type { JobRecord, UsageSample } from "@jobsight/schemas";
import { buildSeries, GIB, MIB, wobble } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/** A sample as a cgroup v1 node reads it: no `memory.events oom`, no pressure (PSI). */
function asCgroupV1(s: UsageSample): UsageSample {
  const { pressure: _psi, ...rest } = s;
  if (!rest.memory) return rest;
  const { oomEvents: _oom, ...memory } = rest.memory;
  return { ...rest, memory };
}

/**
 * OpenMP sized to the node's 64 cores inside an 8-core cpuset, on a cgroup v1 node without PSI:
 * every core busy, and the collector counts ~60 runnable threads.
 */
function threadsWithoutPressure(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8360",
    node: "cn062",
    user: "nina",
    jobName: "solver",
    executable: "solver",
    start: "2026-11-14T11:00:00Z",
    runSeconds: 3600,
    cores: 8,
    coresUsed: 7.97,
    memoryBytes: 16 * GIB,
    memoryUsed: 9 * GIB,
    walltimeSeconds: 2 * 3600,
    shape: (i, _e, base) => ({
      ...base,
      cores: 7.97,
      pids: 3,
      threads: 66,
      runnableThreads: Math.round(61 + wobble(i, 41) * 3),
      pressure: undefined,
    }),
  });
  return {
    name: "cpu-oversubscribed-threads-cgroup-v1",
    description:
      "64 OpenMP threads in an 8-core cpuset on a cgroup v1 node: no PSI, ~61 runnable threads counted from /proc.",
    input: { record, samples: samples.map(asCgroupV1), events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_oversubscribed"],
      unseen: [],
      causeDetermined: true,
      claims: {
        cpu_oversubscribed: [
          /on cn062, 6\d runnable threads \(median; up to 6\d of 66\) on 8 cores for 9\d% of the run/,
          "not seen there: cpu.pressure",
          "OMP_NUM_THREADS",
        ],
      },
      neverClaims: ["CPU pressure (some) averaged"],
    },
  };
}

/** A pod limited to 2 CPUs runs a 16-thread pool: 16 runnable threads, throttled in ~45% of periods. */
function threadsUnderQuota(): DiagnosisScenario {
  const cluster = "k8s-prod";
  const jobId = "analytics/report-gen-7c2e1-x8k4p";
  const node = "ip-10-0-5-91";
  const start = "2026-11-15T12:00:00Z";
  const samples = buildSeries({
    cluster,
    jobId,
    node,
    start,
    intervalSeconds: 15,
    count: 119,
    memoryLimitBytes: 8 * GIB,
    cpuLimitCores: 2,
    shape: (i) => {
      const current = 5 * GIB + wobble(i) * 60 * MIB;
      return {
        memory: { current, anon: current * 0.85, file: current * 0.15, shmem: 8 * MIB },
        cores: 1.98,
        throttledShare: 0.45 + wobble(i, 2) * 0.05,
        pids: 22,
        threads: 22,
        runnableThreads: 16,
        pressure: { cpuSome: 55 + wobble(i, 3) * 8, memorySome: 0, ioSome: 0.4 },
      };
    },
    final: { at: "2026-11-15T12:30:04Z", shape: { memory: { current: 20 * MIB } } },
  });
  const record: JobRecord = {
    cluster,
    jobId,
    phase: "ended",
    source: "kubernetes",
    spec: {
      cluster,
      scheduler: "kubernetes",
      user: "system:serviceaccount:analytics:reports",
      account: "analytics",
      jobName: "report-gen-7c2e1",
      executable: "registry.internal/analytics/report-gen:1.15.0",
      requested: { memoryBytes: 8 * GIB, cores: 2 },
    },
    submittedAt: "2026-11-15T11:59:50Z",
    startedAt: start,
    endedAt: "2026-11-15T12:30:00Z",
    outcome: { state: "COMPLETED", exitCode: 0, reason: "Completed" },
    nodes: [node],
    allocated: { memoryBytes: 8 * GIB, cores: 2 },
  };
  return {
    name: "cpu-oversubscribed-under-quota",
    description:
      "A 2-CPU pod runs 16 runnable threads: the thread count is the cause, the CFS throttling its symptom.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      // The oversubscription claim cites the throttled time; cpu_throttled would say less.
      findings: ["cpu_oversubscribed"],
      unseen: [],
      causeDetermined: true,
      claims: {
        cpu_oversubscribed: [
          "16 runnable threads (median; up to 16 of 22) on 2 cores for 9",
          /throttled \d+ min \d+ s in 4\d% of \d+ periods/,
        ],
      },
    },
  };
}

/**
 * `make -j48` in a 16-core cpuset, alone on a cgroup v1 node whose collector scans no processes
 * (no thread counts, no PSI): only the node's load, from /proc/loadavg, shows the queue.
 */
function loadOnExclusiveNode(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8380",
    node: "cn064",
    user: "paul",
    jobName: "build-llvm",
    executable: "make",
    start: "2026-11-14T17:00:00Z",
    runSeconds: 3600,
    cores: 16,
    coresUsed: 15.9,
    memoryBytes: 32 * GIB,
    memoryUsed: 20 * GIB,
    walltimeSeconds: 2 * 3600,
    shape: (i, _e, base) => ({
      ...base,
      processes: undefined,
      pressure: undefined,
      nodeRunnable: Math.round(46 + wobble(i, 43) * 3),
      nodeLoad1: Math.round((45.5 + wobble(i, 44) * 1.5) * 100) / 100,
    }),
  });
  return {
    name: "cpu-oversubscribed-node-load",
    description:
      "make -j48 in a 16-core cpuset, alone on a cgroup v1 node without thread counts: ~46 runnable tasks in /proc/loadavg.",
    input: { record, samples: samples.map(asCgroupV1), events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_oversubscribed"],
      unseen: [],
      causeDetermined: true,
      claims: {
        cpu_oversubscribed: [
          /on cn064, 4\d tasks running or waiting for a core on the node \(median; up to 4\d, 1-minute load 4\d(\.\d)?; \/proc\/loadavg, the job alone on the node\) on 16 cores for 9\d% of the run/,
          "seen only through the node's load, which counts every task on the node",
          "not seen there: runnable-thread counts",
          "OMP_NUM_THREADS",
        ],
      },
      neverClaims: ["runnable threads (median", "CPU pressure (some) averaged"],
    },
  };
}

/**
 * A busy 8-core job on a cgroup v1 node whose collector counted no threads: every core busy, but
 * nothing says whether 8 threads or 80 shared them.
 */
function contentionUnseen(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8370",
    node: "cn063",
    user: "omar",
    jobName: "align",
    executable: "bwa",
    start: "2026-11-14T15:00:00Z",
    runSeconds: 3600,
    cores: 8,
    coresUsed: 7.9,
    memoryBytes: 16 * GIB,
    memoryUsed: 9 * GIB,
    walltimeSeconds: 2 * 3600,
    shape: (_i, _e, base) => ({ ...base, pressure: undefined }),
  });
  return {
    name: "cpu-contention-unseen",
    description:
      "All 8 cores busy on a node without PSI or thread counts: oversubscription cannot be judged.",
    input: { record, samples: samples.map(asCgroupV1), events: [], sourcesSeen: {} },
    expect: {
      findings: [],
      unseen: ["cpu-contention"],
      causeDetermined: true,
      neverClaims: ["runnable threads"],
    },
  };
}

/**
 * Oversubscription seen through counted runnable threads or a lone node's load, and not judged
 * where nothing could see it.
 */
export const cpuContentionScenarios: readonly DiagnosisScenario[] = [
  threadsWithoutPressure(),
  threadsUnderQuota(),
  loadOnExclusiveNode(),
  contentionUnseen(),
];
