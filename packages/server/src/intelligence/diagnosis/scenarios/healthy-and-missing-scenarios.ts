import { slurmRecord } from "./build-record.js";
import { a100, GIB } from "./build-samples.js";
import { unavailable } from "./kernel-events.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/** A CPU job that used what it asked for. */
function healthyCpu(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9300",
    node: "cn100",
    user: "tara",
    jobName: "bootstrap-ci",
    executable: "bootstrap.R",
    start: "2026-11-17T08:00:00Z",
    runSeconds: 5400,
    cores: 8,
    coresUsed: 6.5,
    memoryBytes: 16 * GIB,
    memoryUsed: 9 * GIB,
    walltimeSeconds: 2 * 3600,
  });
  return {
    name: "healthy-cpu",
    description: "A CPU job uses 80% of its cores, 56% of its memory and 75% of its walltime.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: { findings: [], unseen: [], causeDetermined: true },
  };
}

/** A GPU job that kept its GPU busy and used a good part of its memory. */
function healthyGpu(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9310",
    node: "gpu06",
    user: "uma",
    jobName: "llm-sft",
    executable: "python",
    start: "2026-11-17T10:00:00Z",
    runSeconds: 11_400,
    cores: 8,
    coresUsed: 5,
    memoryBytes: 64 * GIB,
    memoryUsed: 30 * GIB,
    walltimeSeconds: 4 * 3600,
    gpus: [a100(0, "3b")],
    gpuUtil: 90,
    gpuMemoryUsed: 52 * GIB,
  });
  return {
    name: "healthy-gpu",
    description: "A GPU job at ~90% utilisation using 52 GiB of its 80 GiB GPU.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: { findings: [], unseen: [], causeDetermined: true },
  };
}

/** The scheduler says OUT_OF_MEMORY but no collector ever reported on the job. */
function noSamplesOom(): DiagnosisScenario {
  const record = slurmRecord({
    jobId: "9400",
    user: "victor",
    node: "cn110",
    jobName: "merge-tables",
    executable: "merge.py",
    requested: { memoryBytes: 4 * GIB, cores: 2, walltimeSeconds: 3600, nodes: 1 },
    submittedAt: "2026-11-18T07:58:00Z",
    startedAt: "2026-11-18T08:00:00Z",
    endedAt: "2026-11-18T08:03:41Z",
    outcome: { state: "OUT_OF_MEMORY", exitCode: 0 },
  });
  return {
    name: "no-samples-oom",
    description: "An OUT_OF_MEMORY job on a node whose collector was down: no samples, no kernel events.",
    input: { record, samples: [], events: [], sourcesSeen: {} },
    expect: {
      findings: ["oom_kill"],
      unseen: ["usage-samples", "kernel-log"],
      causeDetermined: true,
      neverClaims: ["anonymous", "climbed", "peaked", "largest process", "fell between"],
    },
  };
}

/** A GPU job on a node without nvidia-smi: no GPU claim may be made. */
function gpuWithoutMetrics(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9410",
    node: "gpu15",
    user: "wes",
    jobName: "train-unet",
    executable: "python",
    start: "2026-11-18T09:00:00Z",
    runSeconds: 7200,
    cores: 8,
    coresUsed: 6,
    memoryBytes: 32 * GIB,
    memoryUsed: 14 * GIB,
    walltimeSeconds: 3 * 3600,
  });
  record.spec.requested.gpus = 2;
  record.allocated = { ...record.allocated, gpus: 2 };
  return {
    name: "gpu-job-without-gpu-metrics",
    description:
      "A two-GPU job on a node where nvidia-smi is missing: GPU use is unknown and nothing is claimed about it.",
    input: {
      record,
      samples,
      events: [
        unavailable({
          cluster: "hpc1",
          node: "gpu15",
          time: "2026-11-18T09:00:31Z",
          source: "gpu",
          message: "failed to run nvidia-smi: spawn nvidia-smi ENOENT",
        }),
      ],
      sourcesSeen: {},
    },
    expect: { findings: [], unseen: ["gpu-metrics"], causeDetermined: true, neverClaims: ["GPU"] },
  };
}

/** A GPU job fails with exit 1 on a node whose kernel log the collector may not read. */
function kernelLogUnreadable(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9420",
    node: "gpu16",
    user: "xena",
    jobName: "seg-train",
    executable: "python",
    start: "2026-11-18T11:00:00Z",
    runSeconds: 1230,
    cores: 8,
    coresUsed: 5.5,
    memoryBytes: 32 * GIB,
    memoryUsed: 12 * GIB,
    walltimeSeconds: 4 * 3600,
    gpus: [a100(0, "3b")],
    gpuUtil: 88,
    gpuMemoryUsed: 30 * GIB,
    outcome: { state: "FAILED", exitCode: 1 },
  });
  return {
    name: "kernel-log-unreadable",
    description:
      "A GPU job exits 1; the kernel log could not be read, so an Xid or OOM kill would have gone unseen.",
    input: {
      record,
      samples,
      events: [
        unavailable({
          cluster: "hpc1",
          node: "gpu16",
          time: "2026-11-18T11:00:05Z",
          source: "kmsg",
          message: "cannot read the kernel log /dev/kmsg: EPERM",
        }),
      ],
      sourcesSeen: {},
    },
    expect: {
      findings: ["job_error"],
      unseen: ["kernel-log"],
      causeDetermined: false,
      claims: { job_error: ["The kernel log of gpu16 was not read"] },
    },
  };
}

/** Healthy jobs (no finding) and jobs with missing data. */
export const healthyAndMissingScenarios: readonly DiagnosisScenario[] = [
  healthyCpu(),
  healthyGpu(),
  noSamplesOom(),
  gpuWithoutMetrics(),
  kernelLogUnreadable(),
];
