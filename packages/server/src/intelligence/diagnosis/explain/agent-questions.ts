import type { FindingKind } from "@jobsight/schemas";

/** What to ask a coding agent about each kind of finding; the agent reads the job's code, Jobsight does not. */
export const AGENT_QUESTIONS: Readonly<Record<FindingKind, string>> = Object.freeze({
  oom_kill:
    "Find what in the code most likely holds the memory described (growing heap, a list or tensor that accumulates, files in /dev/shm, page cache) and propose the smallest change, to the code or to the memory request, that would let the job finish within its limit. Say how to confirm it.",
  gpu_fault_application:
    "Find which GPU kernel or library call most likely caused these Xid errors (out-of-bounds index, use after free, mismatched CUDA and driver versions) and how to reproduce it (for example with CUDA_LAUNCH_BLOCKING=1 or compute-sanitizer).",
  gpu_fault_hardware:
    "The fault points at the node. Check that nothing in the job could have caused it, say whether resubmitting while excluding the node is the right response, and draft a short note for the cluster administrators.",
  stalled_data_loader:
    "Find how the job loads its input (loader workers, prefetching, file format, where the data lives) and what would keep the GPUs fed during the windows quoted.",
  gpus_unused:
    "Find whether the code uses the GPUs it reserves at all (device selection, CUDA_VISIBLE_DEVICES, a framework falling back to the CPU, a launcher starting fewer ranks than GPUs) and what the job should request instead.",
  gpu_underutilised:
    "Find what keeps GPU utilisation low (small batches, host-to-device copies, synchronisation, work done on the CPU between steps).",
  gpu_memory_overreserved:
    "Given the GPU memory measured, say whether a smaller GPU or a GPU slice would fit the job and what the request would be.",
  timeout:
    "Using the run-time history and the findings, say whether the job needs a longer limit, checkpointing and restart, or whether this run hung; if it may have hung, find where in the code it could wait forever.",
  walltime_overrequested: "Propose a walltime request that fits the measured run time with a safety margin.",
  cpu_low_efficiency:
    "Find how many threads or processes the code really runs and propose a core request that matches.",
  cpu_oversubscribed:
    "Find where thread counts are set (OMP_NUM_THREADS, MKL or BLAS threads, torch.set_num_threads, worker pools) and how to match them to the cores reserved.",
  cpu_throttled: "Find the CPU limit and the threads the code starts, and how to bring them in line.",
  memory_overrequested: "Propose a memory request that fits the measured peak with a safety margin.",
  node_failure:
    "The job did not fail on its own. Say whether it can resume from a checkpoint and what in the submission would let it survive a restart (requeue, checkpointing).",
  preempted:
    "The job did not fail on its own. Say whether it can resume from a checkpoint and what in the submission would let it survive preemption (requeue, checkpointing, a non-preemptible QOS).",
  cancelled:
    "The job was cancelled from outside. Say whether anything in the findings suggests why it was cancelled.",
  job_error:
    "Nothing Jobsight observed explains the failure. Read the submission, the code and any error lines quoted, find the most likely cause of the exit, and say what extra output or measurement would settle it.",
});
