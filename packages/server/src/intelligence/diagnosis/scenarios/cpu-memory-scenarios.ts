import type { JobRecord } from "@jobsight/schemas";
import { buildSeries, GIB, MIB, wobble } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/** A single-threaded script that reserved 32 cores. */
function cpuLowEfficiency(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8300",
    node: "cn050",
    user: "mia",
    jobName: "postprocess",
    executable: "postprocess.py",
    start: "2026-11-13T08:00:00Z",
    runSeconds: 10_800,
    cores: 32,
    coresUsed: 1.9,
    memoryBytes: 64 * GIB,
    memoryUsed: 20 * GIB,
    walltimeSeconds: 4 * 3600,
  });
  return {
    name: "cpu-low-efficiency",
    description: "A mostly single-threaded job reserves 32 cores and keeps about two busy.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_low_efficiency"],
      unseen: [],
      causeDetermined: true,
      claims: { cpu_low_efficiency: ["reserved 32 cores", "6% CPU efficiency"] },
    },
  };
}

/** A Kubernetes pod limited to 2 CPUs whose worker pool wants more: CFS throttles it in 45% of periods. */
function cpuThrottled(): DiagnosisScenario {
  const cluster = "k8s-prod";
  const jobId = "analytics/report-gen-5d8f7-qw2zc";
  const node = "ip-10-0-5-88";
  const start = "2026-11-13T12:00:00Z";
  const samples = buildSeries({
    cluster,
    jobId,
    node,
    start,
    intervalSeconds: 15,
    count: 199,
    memoryLimitBytes: 8 * GIB,
    cpuLimitCores: 2,
    shape: (i) => {
      const current = 5 * GIB + wobble(i) * 60 * MIB;
      return {
        memory: { current, anon: current * 0.85, file: current * 0.15, shmem: 8 * MIB },
        cores: 1.98,
        throttledShare: 0.45 + wobble(i, 2) * 0.05,
        pids: 22,
        pressure: { cpuSome: 55 + wobble(i, 3) * 8, memorySome: 0, ioSome: 0.4 },
        processes: [{ pid: 7, command: "java", rssBytes: Math.round(current * 0.9), state: "R" }],
      };
    },
    final: {
      at: "2026-11-13T12:49:59Z",
      shape: { memory: { current: 20 * MIB, anon: 4 * MIB, file: 16 * MIB, shmem: 0 } },
    },
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
      jobName: "report-gen-5d8f7",
      executable: "registry.internal/analytics/report-gen:1.14.0",
      requested: { memoryBytes: 8 * GIB, cores: 2 },
    },
    submittedAt: "2026-11-13T11:59:50Z",
    startedAt: start,
    endedAt: "2026-11-13T12:49:55Z",
    outcome: { state: "COMPLETED", exitCode: 0, reason: "Completed" },
    nodes: [node],
    allocated: { memoryBytes: 8 * GIB, cores: 2 },
  };
  return {
    name: "cpu-throttled",
    description: "A pod with a 2-CPU limit runs a 16-thread pool: throttled in ~45% of CFS periods.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_throttled"],
      unseen: [],
      causeDetermined: true,
      claims: { cpu_throttled: ["by its 2-core quota", "throttled in 4"] },
    },
  };
}

/** OpenMP defaults to the node's 64 threads inside an 8-core allocation. */
function cpuOversubscribed(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8350",
    node: "cn061",
    user: "nina",
    jobName: "solver",
    executable: "solver",
    start: "2026-11-14T09:00:00Z",
    runSeconds: 5400,
    cores: 8,
    coresUsed: 7.96,
    memoryBytes: 16 * GIB,
    memoryUsed: 9 * GIB,
    walltimeSeconds: 2 * 3600,
    shape: (i, _e, base) => ({
      ...base,
      cores: 7.96,
      pids: 66,
      pressure: { cpuSome: 68 + wobble(i, 31) * 6, memorySome: 0, ioSome: 0.5 },
    }),
  });
  return {
    name: "cpu-oversubscribed",
    description: "64 OpenMP threads in an 8-core cpuset: all cores busy, cpu.pressure ~68%.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_oversubscribed"],
      unseen: [],
      causeDetermined: true,
      claims: { cpu_oversubscribed: ["all 8 cores were busy", "up to 66 tasks"] },
    },
  };
}

/** A job that asks for 128 GiB and peaks at 9 GiB. */
function memoryOverrequested(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8400",
    node: "cn070",
    user: "omar",
    jobName: "variant-call",
    executable: "gatk",
    start: "2026-11-14T13:00:00Z",
    runSeconds: 7200,
    cores: 8,
    coresUsed: 6.8,
    memoryBytes: 128 * GIB,
    memoryUsed: 9 * GIB,
    walltimeSeconds: 3 * 3600,
  });
  return {
    name: "memory-overrequested",
    description: "A job reserves 128 GiB of memory and never uses more than about 9 GiB.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["memory_overrequested"],
      unseen: [],
      causeDetermined: true,
      claims: { memory_overrequested: ["reserved 128 GiB", "never used more than 9"] },
    },
  };
}

/** A 90 s job that reserved 32 cores and ran nothing on them: short, but sampled from end to end. */
function shortIdleCores(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8310",
    node: "cn052",
    user: "mia",
    jobName: "launch-check",
    executable: "launch.sh",
    start: "2026-11-13T07:00:00Z",
    runSeconds: 90,
    intervalSeconds: 10,
    cores: 32,
    coresUsed: 0,
    memoryBytes: 4 * GIB,
    memoryUsed: 2 * GIB,
  });
  return {
    name: "short-idle-cores",
    description: "A 90 s job reserves 32 cores and leaves every one idle; ten-second samples cover the run.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["cpu_low_efficiency"],
      unseen: [],
      causeDetermined: true,
      claims: { cpu_low_efficiency: ["reserved 32 cores", "left them all idle", "over 1 min 24 s"] },
    },
  };
}

/** A 20 s job: two readings, too few to say how busy its cores were. */
function tooShortToJudge(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8320",
    node: "cn053",
    user: "mia",
    jobName: "launch-check",
    executable: "launch.sh",
    start: "2026-11-13T07:10:00Z",
    runSeconds: 20,
    intervalSeconds: 10,
    cores: 32,
    coresUsed: 0,
    memoryBytes: 4 * GIB,
    memoryUsed: 2 * GIB,
  });
  return {
    name: "too-short-to-judge",
    description:
      "A 20 s job with 32 idle cores: its two samples cannot show CPU use, and the diagnosis says so.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: [],
      unseen: ["usage-samples"],
      causeDetermined: true,
      neverClaims: ["idle"],
    },
  };
}

/** The CPU and memory scenarios. */
export const cpuMemoryScenarios: readonly DiagnosisScenario[] = [
  cpuLowEfficiency(),
  shortIdleCores(),
  tooShortToJudge(),
  cpuThrottled(),
  cpuOversubscribed(),
  memoryOverrequested(),
];
