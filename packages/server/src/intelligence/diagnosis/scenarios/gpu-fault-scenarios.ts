import { a100, after, GIB } from "./build-samples.js";
import { gpuLostEvent, unavailable, xidEvent } from "./kernel-events.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/** GPU 2 of a four-GPU training job falls off the bus (Xid 79); NCCL fails and the job exits 1. */
function xid79(): DiagnosisScenario {
  const start = "2026-11-07T09:00:00Z";
  const gpus = [a100(0, "07"), a100(1, "0f"), a100(2, "47"), a100(3, "4e")];
  const lost = 8130; // 11:15:30, the last reading nvidia-smi could take
  const { record, samples } = steadyJob({
    jobId: "7342",
    node: "gpu12",
    user: "frank",
    jobName: "pretrain-7b",
    executable: "torchrun",
    start,
    runSeconds: 8230,
    cores: 16,
    coresUsed: 12,
    memoryBytes: 128 * GIB,
    memoryUsed: 70 * GIB,
    walltimeSeconds: 12 * 3600,
    gpus,
    gpuUtil: 92,
    gpuMemoryUsed: 61 * GIB,
    outcome: { state: "FAILED", exitCode: 1 },
    shape: (_i, elapsed, base) => (elapsed > lost ? { ...base, gpus: undefined, cores: 1.5 } : base),
  });
  return {
    name: "gpu-xid-79-hardware",
    description:
      "GPU 2 falls off the PCIe bus mid-run (Xid 79); nvidia-smi loses it and the job exits 1 on an NCCL error.",
    input: {
      record,
      samples,
      events: [
        xidEvent({
          cluster: "hpc1",
          node: "gpu12",
          time: "2026-11-07T11:15:42Z",
          pci: "0000:47:00",
          code: 79,
          detail: "GPU has fallen off the bus.",
        }),
        unavailable({
          cluster: "hpc1",
          node: "gpu12",
          time: "2026-11-07T11:16:00Z",
          source: "gpu",
          message:
            "nvidia-smi failed: Unable to determine the device handle for GPU 00000000:47:00.0: Unknown Error",
        }),
      ],
      logLines: [
        {
          source: "slurm-output",
          line: "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        },
      ],
      sourcesSeen: {},
    },
    expect: {
      findings: ["gpu_fault_hardware"],
      unseen: ["gpu-metrics"],
      causeDetermined: true,
      claims: {
        gpu_fault_hardware: [
          "Xid 79 (GPU has fallen off the bus)",
          "GPU 2 (0000:47:00)",
          "points at the node",
        ],
      },
      neverClaims: ["job's own GPU code"],
    },
  };
}

/**
 * GPU 2 falls off the bus and both sources say so: the kernel logs Xid 79, nvidia-smi fails with
 * "GPU is lost" (exit 15) eight seconds later. One loss, counted once, the job not blamed.
 */
function gpuLostTwice(): DiagnosisScenario {
  const start = "2026-11-09T09:00:00Z";
  const gpus = [a100(0, "07"), a100(1, "0f"), a100(2, "47"), a100(3, "4e")];
  const lost = 5130;
  const { record, samples } = steadyJob({
    jobId: "7350",
    node: "gpu14",
    user: "frank",
    jobName: "pretrain-7b",
    executable: "torchrun",
    start,
    runSeconds: 5230,
    cores: 16,
    coresUsed: 12,
    memoryBytes: 128 * GIB,
    memoryUsed: 70 * GIB,
    walltimeSeconds: 12 * 3600,
    gpus,
    gpuUtil: 92,
    gpuMemoryUsed: 61 * GIB,
    outcome: { state: "FAILED", exitCode: 1 },
    shape: (_i, elapsed, base) => (elapsed > lost ? { ...base, gpus: undefined, cores: 1.5 } : base),
  });
  const xidAt = after(start, lost + 12);
  const detail = "GPU has fallen off the bus.";
  return {
    name: "gpu-lost-nvidia-smi-and-xid",
    description:
      "GPU 2 falls off the bus: the kernel's Xid 79 and nvidia-smi's 'GPU is lost' report the same loss, counted once.",
    input: {
      record,
      samples,
      events: [
        xidEvent({
          cluster: "hpc1",
          node: "gpu14",
          time: xidAt,
          jobId: "7350",
          pci: "0000:47:00",
          code: 79,
          detail,
        }),
        gpuLostEvent({
          cluster: "hpc1",
          node: "gpu14",
          time: after(start, lost + 20),
          jobId: "7350",
          pci: "0000:47:00.0",
          index: 2,
          uuid: gpus[2].uuid,
          exitCode: 15,
          xid: { code: 79, pci: "0000:47:00", time: xidAt, detail },
        }),
      ],
      sourcesSeen: {},
    },
    expect: {
      findings: ["gpu_fault_hardware"],
      unseen: ["gpu-metrics"],
      causeDetermined: true,
      claims: {
        gpu_fault_hardware: [
          `GPU 2 (0000:47:00) on gpu14 was lost at ${xidAt}`,
          "the kernel logged Xid 79 (GPU has fallen off the bus) and nvidia-smi could no longer reach it",
          "exit status 15",
          "One GPU was lost.",
          "points at the node",
        ],
      },
      neverClaims: ["2 times", "GPUs were lost", "job's own GPU code"],
    },
  };
}

/** A custom CUDA kernel reads out of range: Xid 13 twice, Xid 43, then Xid 45 as the process dies. */
function xid13(): DiagnosisScenario {
  const start = "2026-11-08T10:00:00Z";
  const gpu = a100(0, "3b");
  const { record, samples } = steadyJob({
    jobId: "7410",
    node: "gpu03",
    user: "grace",
    jobName: "sparse-attn",
    executable: "python",
    start,
    runSeconds: 855,
    cores: 8,
    coresUsed: 4,
    memoryBytes: 64 * GIB,
    memoryUsed: 20 * GIB,
    walltimeSeconds: 4 * 3600,
    gpus: [gpu],
    gpuUtil: 80,
    gpuMemoryUsed: 22 * GIB,
    outcome: { state: "FAILED", exitCode: 1 },
    shape: (_i, _e, base) => ({
      ...base,
      processes: [{ pid: 51877, command: "python", rssBytes: 18 * GIB, state: "R" }],
    }),
  });
  const x = (time: string, code: number, detail: string) =>
    xidEvent({
      cluster: "hpc1",
      node: "gpu03",
      time,
      pci: "0000:3b:00",
      code,
      pid: 51877,
      name: "python",
      detail,
    });
  return {
    name: "gpu-xid-13-application",
    description:
      "The job's own CUDA extension faults on an out-of-range address (Xid 13, then 43); the process exits 1.",
    input: {
      record,
      samples,
      events: [
        x(after(start, 847), 13, "Graphics SM Warp Exception on (GPC 1, TPC 2, SM 0): Out Of Range Address"),
        x(
          after(start, 847),
          13,
          "Graphics Exception: ESR 0x51a730=0x201000e 0x51a734=0x20 0x51a728=0x4c1eb72 0x51a72c=0x174",
        ),
        x(after(start, 849), 43, "Ch 00000008"),
        x(after(start, 852), 45, "Ch 00000008"),
      ],
      logLines: [{ source: "slurm-output", line: "RuntimeError: CUDA error: unspecified launch failure" }],
      sourcesSeen: {},
    },
    expect: {
      findings: ["gpu_fault_application"],
      unseen: [],
      causeDetermined: true,
      claims: {
        gpu_fault_application: [
          "Xid 13 (Graphics Engine Exception) 2 times",
          "python (pid 51877)",
          "not from the node",
        ],
      },
      neverClaims: ["Xid 45", "points at the node"],
    },
  };
}

/** The GPU fault scenarios. */
export const gpuFaultScenarios: readonly DiagnosisScenario[] = [xid79(), gpuLostTwice(), xid13()];
