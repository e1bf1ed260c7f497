import { a100, GIB, wobble } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/**
 * Training whose loader reads small files from network storage: every 20 minutes the GPUs idle for
 * six while the loader workers sit in state D and io.pressure climbs.
 */
function stalledLoader(): DiagnosisScenario {
  const stalled = (i: number) => i % 40 >= 28;
  const { record, samples } = steadyJob({
    jobId: "7555",
    node: "gpu05",
    user: "heidi",
    jobName: "vit-finetune",
    executable: "python",
    start: "2026-11-09T08:00:00Z",
    runSeconds: 7200,
    cores: 16,
    coresUsed: 9.5,
    memoryBytes: 64 * GIB,
    memoryUsed: 30 * GIB,
    walltimeSeconds: 3 * 3600,
    gpus: [a100(0, "31"), a100(1, "b1")],
    gpuUtil: 91,
    gpuMemoryUsed: 52 * GIB,
    shape: (i, _e, base) => {
      if (!stalled(i)) {
        return {
          ...base,
          pressure: { cpuSome: 4, memorySome: 0, ioSome: 4 + wobble(i, 11) * 2 },
          processes: [
            { pid: 9100, command: "python", rssBytes: 24 * GIB, state: "R" },
            { pid: 9101, command: "pt_data_worker", rssBytes: 900 * 2 ** 20, state: "R" },
            { pid: 9102, command: "pt_data_worker", rssBytes: 900 * 2 ** 20, state: "S" },
          ],
        };
      }
      return {
        ...base,
        cores: 3.5 + wobble(i, 12) * 0.3,
        pressure: { cpuSome: 2, memorySome: 0, ioSome: 38 + wobble(i, 13) * 12 },
        gpus: base.gpus!.map((g) => ({ ...g, util: 6 + wobble(i, 14 + g.index) * 4 })),
        processes: [
          { pid: 9100, command: "python", rssBytes: 24 * GIB, state: "S" },
          { pid: 9101, command: "pt_data_worker", rssBytes: 900 * 2 ** 20, state: "D" },
          { pid: 9102, command: "pt_data_worker", rssBytes: 900 * 2 ** 20, state: "D" },
        ],
      };
    },
  });
  return {
    name: "stalled-data-loader",
    description:
      "GPUs idle in six-minute windows every 20 minutes while loader workers wait on I/O (state D, io.pressure ~40%).",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["stalled_data_loader"],
      unseen: [],
      causeDetermined: true,
      claims: { stalled_data_loader: ["6 windows", "state D", "I/O pressure (some) averaged"] },
    },
  };
}

/** A scikit-learn job submitted to the GPU partition: two A100s reserved, never touched. */
function gpusUnused(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "7600",
    node: "gpu09",
    user: "ivan",
    jobName: "gbm-sweep",
    executable: "python",
    start: "2026-11-09T13:00:00Z",
    runSeconds: 6000,
    cores: 16,
    coresUsed: 12.5,
    memoryBytes: 32 * GIB,
    memoryUsed: 14 * GIB,
    walltimeSeconds: 4 * 3600,
    gpus: [a100(0, "07"), a100(1, "0f")],
    gpuUtil: 0,
    gpuMemoryUsed: 0,
    shape: (_i, _e, base) => ({ ...base, gpus: base.gpus!.map((g) => ({ ...g, util: 0 })) }),
  });
  return {
    name: "gpus-unused",
    description: "A CPU-only job reserves two GPUs that stay at 0% for the whole run.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["gpus_unused"],
      unseen: [],
      causeDetermined: true,
      claims: { gpus_unused: ["2 of the 2 GPUs", "for the whole job", "GPU 0 on gpu09, GPU 1 on gpu09"] },
    },
  };
}

/** Inference with batch size 1: the GPU is busy a fifth of the time, nothing waits on I/O. */
function gpuUnderutilised(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "7650",
    node: "gpu02",
    user: "judy",
    jobName: "score-batch",
    executable: "python",
    start: "2026-11-10T09:00:00Z",
    runSeconds: 5400,
    cores: 8,
    coresUsed: 3,
    memoryBytes: 32 * GIB,
    memoryUsed: 12 * GIB,
    walltimeSeconds: 2 * 3600,
    gpus: [a100(0, "3b")],
    gpuUtil: 18,
    gpuMemoryUsed: 40 * GIB,
    shape: (i, _e, base) => ({
      ...base,
      gpus: base.gpus!.map((g) => ({ ...g, util: 18 + wobble(i, 21) * 8 })),
    }),
  });
  return {
    name: "gpu-underutilised",
    description:
      "An inference job keeps its GPU busy about 18% of the time, with no I/O stall and CPUs to spare.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["gpu_underutilised"],
      unseen: [],
      causeDetermined: true,
      claims: { gpu_underutilised: [/GPU 0 on gpu02 averaged 1\d(\.\d)?%/] },
    },
  };
}

/** A small model on an 80 GB A100: busy, but using 6 GiB of its memory. */
function gpuMemoryOverreserved(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "7700",
    node: "gpu04",
    user: "ken",
    jobName: "cnn-train",
    executable: "python",
    start: "2026-11-10T14:00:00Z",
    runSeconds: 7200,
    cores: 8,
    coresUsed: 6,
    memoryBytes: 32 * GIB,
    memoryUsed: 12 * GIB,
    walltimeSeconds: 3 * 3600,
    gpus: [a100(0, "3b")],
    gpuUtil: 86,
    gpuMemoryUsed: 6 * GIB,
  });
  return {
    name: "gpu-memory-overreserved",
    description: "A busy job uses 6 GiB of an 80 GiB GPU.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["gpu_memory_overreserved"],
      unseen: [],
      causeDetermined: true,
      claims: { gpu_memory_overreserved: ["used at most 6 GiB of 80 GiB"] },
    },
  };
}

/** The GPU usage scenarios. */
export const gpuUsageScenarios: readonly DiagnosisScenario[] = [
  stalledLoader(),
  gpusUnused(),
  gpuUnderutilised(),
  gpuMemoryOverreserved(),
];
