import type { JobOutcome } from "@jobsight/schemas";
import { a100, GIB } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

// Each job's stderr as the controller-mode collector sends it: the end of the file, in the record.
const tail = (path: string, lines: readonly string[]): JobOutcome["stderrTail"] => ({
  path,
  text: `${lines.join("\n")}\n`,
  truncated: false,
});

/** A C++ solver dereferences a bad pointer; bash reports the segfault and exits 139. */
function segfault(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "70011",
    node: "cn031",
    user: "lee",
    jobName: "case7",
    executable: "solver",
    start: "2026-11-17T08:00:00Z",
    runSeconds: 1312,
    cores: 16,
    coresUsed: 15.2,
    memoryBytes: 32 * GIB,
    memoryUsed: 11 * GIB,
    walltimeSeconds: 4 * 3600,
    outcome: {
      state: "FAILED",
      exitCode: 139,
      stderrTail: tail("/home/lee/case7/slurm-70011.out", [
        "Reading mesh from /scratch/lee/case7/mesh.h5",
        "Assembling matrix (2104332 dofs)",
        "/var/spool/slurmd/job70011/slurm_script: line 9: 182734 Segmentation fault      (core dumped) ./solver --input case7.yaml",
      ]),
    },
    steps: [{ stepId: "batch", state: "FAILED", exitCode: 139, elapsedSeconds: 1312 }],
  });
  return {
    name: "crash-segfault",
    description: "A solver segfaults 22 minutes in; bash prints it and the batch script exits 139.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["job_error"],
      unseen: [],
      causeDetermined: true,
      claims: { job_error: ["segmentation fault (SIGSEGV)", "exit code 139 (128 + 11: killed by SIGSEGV)"] },
      neverClaims: ["cause was not determined", "Only its output says so"],
    },
  };
}

/** A Python data job raises KeyError; the traceback's last line names it. */
function pythonException(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "70022",
    node: "cn044",
    user: "mia",
    jobName: "features",
    executable: "build_features.py",
    start: "2026-11-17T09:00:00Z",
    runSeconds: 845,
    cores: 8,
    coresUsed: 6.8,
    memoryBytes: 16 * GIB,
    memoryUsed: 5 * GIB,
    walltimeSeconds: 3600,
    outcome: {
      state: "FAILED",
      exitCode: 1,
      stderrTail: tail("/home/mia/features/logs/features-70022.err", [
        "Traceback (most recent call last):",
        '  File "/home/mia/features/build_features.py", line 141, in <module>',
        "    main()",
        '  File "/home/mia/features/build_features.py", line 133, in main',
        '    rows = [encode(r, vocab[r["site"]]) for r in reader]',
        "                      ~~~~~^^^^^^^^^^^",
        "KeyError: 'BRW-07'",
      ]),
    },
    steps: [{ stepId: "batch", state: "FAILED", exitCode: 1, elapsedSeconds: 845 }],
  });
  return {
    name: "crash-python-exception",
    description: "A feature-building script stops on an uncaught KeyError after 14 minutes.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["job_error"],
      unseen: [],
      causeDetermined: true,
      claims: { job_error: ["uncaught exception", "KeyError: 'BRW-07'", "exit code 1"] },
      neverClaims: ["cause was not determined", "segmentation fault", "GPU memory"],
    },
  };
}

/** A PyTorch training step asks for 2 GiB more than the A100 has left. */
function cudaOutOfMemory(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "70033",
    node: "gpu07",
    user: "noor",
    jobName: "vit-h-bs512",
    executable: "train.py",
    start: "2026-11-17T10:00:00Z",
    runSeconds: 412,
    cores: 8,
    coresUsed: 6,
    memoryBytes: 64 * GIB,
    memoryUsed: 22 * GIB,
    walltimeSeconds: 8 * 3600,
    gpus: [a100(0, "3b")],
    gpuUtil: 93,
    gpuMemoryUsed: 78 * GIB,
    outcome: {
      state: "FAILED",
      exitCode: 1,
      stderrTail: tail("/home/noor/vit/slurm-70033.out", [
        "Traceback (most recent call last):",
        '  File "/home/noor/vit/train.py", line 212, in <module>',
        "    loss.backward()",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", line 522, in backward',
        "    torch.autograd.backward(",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use. Of the allocated memory 75.20 GiB is allocated by PyTorch, and 1.37 GiB is reserved by PyTorch but unallocated.",
      ]),
    },
    steps: [{ stepId: "batch", state: "FAILED", exitCode: 1, elapsedSeconds: 412 }],
  });
  return {
    name: "crash-cuda-out-of-memory",
    description:
      "A ViT training run fills the A100's memory on the backward pass and raises OutOfMemoryError.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["job_error"],
      unseen: [],
      causeDetermined: true,
      claims: { job_error: ["ran out of GPU memory (CUDA out of memory)", "not the node's"] },
      neverClaims: ["cause was not determined", "uncaught exception"],
    },
  };
}

/** One rank of an Open MPI code finds bad input and calls MPI_Abort; srun reports the task's exit. */
function mpiAbort(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "70044",
    node: "cn050",
    user: "ola",
    jobName: "wrf-d03",
    executable: "wrf.exe",
    start: "2026-11-17T11:00:00Z",
    runSeconds: 96,
    cores: 64,
    coresUsed: 60,
    memoryBytes: 128 * GIB,
    memoryUsed: 40 * GIB,
    walltimeSeconds: 12 * 3600,
    outcome: {
      state: "FAILED",
      exitCode: 2,
      stderrTail: tail("/scratch/ola/wrf/wrf-d03.70044.err", [
        "--------------------------------------------------------------------------",
        "MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD",
        "with errorcode 2.",
        "",
        "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.",
        "You may or may not see output from other processes, depending on",
        "exactly when Open MPI kills them.",
        "--------------------------------------------------------------------------",
        "srun: error: cn050: task 3: Exited with exit code 2",
      ]),
    },
    steps: [
      { stepId: "batch", state: "FAILED", exitCode: 2, elapsedSeconds: 96 },
      { stepId: "0", state: "FAILED", exitCode: 2, elapsedSeconds: 91 },
    ],
  });
  return {
    name: "crash-mpi-abort",
    description: "Rank 3 of a WRF run calls MPI_Abort with error code 2 a minute and a half in.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["job_error"],
      unseen: [],
      causeDetermined: true,
      claims: { job_error: ["aborted itself (MPI_Abort with error code 2)", "exit code 2"] },
      neverClaims: ["cause was not determined", "segmentation fault"],
    },
  };
}

/** Jobs whose own program crashed, one per crash the job's stderr can name. */
export const crashScenarios: readonly DiagnosisScenario[] = [
  segfault(),
  pythonException(),
  cudaOutOfMemory(),
  mpiAbort(),
];
