import type { FindingKind } from "@jobsight/schemas";
import { type GpuReading, IDLE_READING } from "./fake-gpus.js";
import {
  directReadLoader,
  growMemory,
  holdMemory,
  keyErrorAfter,
  python,
  srunThenCarryOn,
  trainUntilFault,
} from "./scenario-scripts.js";

/**
 * Which node collector watches the job: `proc` reads the real /proc (this cluster has no cgroups),
 * nvidia-smi and the kernel log from generated sources; `cgroup` reads a generated cgroup v2 tree
 * that follows the job's real process, for what only a cgroup shows (the memory controller's OOM kill).
 */
export type ScenarioPhase = "cgroup" | "proc";

/** What the node's kernel or GPU driver does to the job; the test plays it, in their formats. */
export type ScenarioFault =
  /** The memory cgroup's OOM killer kills the job's process near its limit. */
  | "cgroup-oom"
  /** Xid 31 (an illegal memory access by the job's kernel); the job's CUDA call then fails. */
  | "xid-application"
  /** Xid 79 and nvidia-smi's "GPU is lost": the GPU fell off the bus under the job. */
  | "xid-gpu-lost";

/** What the diagnosis of a class must say. */
export type ScenarioExpectation = {
  /** Finding kinds that must be there; any other kind is a claim the evidence does not support. */
  present: readonly FindingKind[];
  /** Kinds that must not be there, named because a careless rule would claim them here. */
  absent: readonly FindingKind[];
  /** Exactly these `unseen` sources: what was, truthfully, not observed. */
  unseen: readonly string[];
  /** Text the findings' evidence must quote from the job's own output (its stderr tail). */
  cites?: readonly string[];
  /**
   * Kinds that are true of the job on some runs and not others, depending on the machine (neither
   * required nor a claim without support when they are there).
   */
  mayAlso?: readonly FindingKind[];
};

/** One class of job: a real sbatch job, and what its diagnosis must say. */
export type ScenarioClass = {
  name: string;
  description: string;
  phase: ScenarioPhase;
  request: { cpus: number; memMb: number; timeMinutes: number };
  script: string;
  /** sbatch's `--output` (relative to the jobs folder). @default `<jobs folder>/slurm-%j.out` */
  output?: string;
  /** The generated GPU SLURM would have allocated the job, and what it reads while the job runs. */
  gpu?: { index: number; reading: GpuReading };
  fault?: ScenarioFault;
  expect: ScenarioExpectation;
};

const BUSY: GpuReading = { utilization: 95, memoryUsedMiB: 30_000, powerW: 310, temperatureC: 71 };
/** A GPU waiting for input: a short burst per batch, its memory held. */
const STARVED: GpuReading = { utilization: 12, memoryUsedMiB: 30_000, powerW: 96, temperatureC: 48 };

// A job shorter than 30 s cannot have its CPU use judged: "usage-samples" says so, truthfully.
const SHORT = ["usage-samples"];

/** The classes of issue #23, one real job each. */
export const SCENARIO_CLASSES: readonly ScenarioClass[] = [
  {
    name: "timeout",
    description: "sleeps past its --time=1",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 1 },
    script: "#!/bin/bash\necho started\nsleep 600\n",
    // No earlier run of the application to compare the limit with.
    expect: { present: ["timeout"], absent: ["job_error", "cancelled"], unseen: ["run-time-history"] },
  },
  {
    name: "oom-slurm-kill",
    description: "grows past --mem=100M and is killed by SLURM's accounting poll (OverMemoryKill)",
    phase: "proc",
    request: { cpus: 1, memMb: 100, timeMinutes: 2 },
    script: python(growMemory({ startMb: 40, holdSeconds: 3, stepMb: 10, everySeconds: 0.2, toMb: 400 })),
    // /proc gives no anon/file/shmem breakdown of what held the memory.
    expect: { present: ["oom_kill"], absent: ["job_error"], unseen: [...SHORT, "memory-stat"] },
  },
  {
    name: "oom-step",
    description:
      "its srun step grows past the job's 150M and is killed; the batch script carries on and exits 0",
    phase: "proc",
    request: { cpus: 1, memMb: 150, timeMinutes: 2 },
    script: srunThenCarryOn(
      growMemory({ startMb: 40, holdSeconds: 3, stepMb: 10, everySeconds: 0.2, toMb: 400 }),
      2,
    ),
    expect: { present: ["oom_kill"], absent: ["job_error"], unseen: [...SHORT, "memory-stat"] },
  },
  {
    name: "oom-kernel-cgroup",
    description: "leaks towards its 256M cgroup limit and is killed by the memory cgroup's OOM killer",
    phase: "cgroup",
    request: { cpus: 1, memMb: 256, timeMinutes: 2 },
    script: python(growMemory({ startMb: 20, holdSeconds: 1, stepMb: 15, everySeconds: 1, toMb: 240 })),
    fault: "cgroup-oom",
    expect: { present: ["oom_kill"], absent: ["job_error"], unseen: SHORT },
  },
  {
    name: "idle-cores",
    description: "reserves 2 cores and sleeps",
    phase: "proc",
    request: { cpus: 2, memMb: 64, timeMinutes: 2 },
    script: "#!/bin/bash\nsleep 40\n",
    expect: { present: ["cpu_low_efficiency"], absent: ["cpu_oversubscribed"], unseen: [] },
  },
  {
    name: "oversubscribed-cores",
    description: "reserves 1 core and runs 3 busy processes (niced, to spare the shared test machine)",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 2 },
    script: [
      "#!/bin/bash",
      "for i in 1 2 3; do nice -n 19 bash -c 'while :; do :; done' & done",
      "sleep 40",
      "kill $(jobs -p)",
      "",
    ].join("\n"),
    expect: { present: ["cpu_oversubscribed"], absent: ["cpu_low_efficiency"], unseen: [] },
  },
  {
    name: "over-asking-walltime",
    description: "asks for 2 hours and is done in 40 s",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 120 },
    script: "#!/bin/bash\nsleep 40\n",
    expect: { present: ["walltime_overrequested"], absent: ["memory_overrequested"], unseen: [] },
  },
  {
    name: "over-asking-memory",
    description: "asks for 4 GiB and holds 100 MB",
    phase: "proc",
    request: { cpus: 1, memMb: 4096, timeMinutes: 2 },
    script: python(holdMemory(100, 40)),
    expect: { present: ["memory_overrequested"], absent: ["walltime_overrequested"], unseen: [] },
  },
  {
    name: "own-crash",
    description: "stops on an uncaught KeyError after 4 s, its output in --output=%x-%j.out",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 2 },
    script: python(keyErrorAfter(4)),
    // Not sbatch's default file: SLURM 22.05's sacct records no path, only squeue knew this one.
    output: "%x-%j.out",
    expect: {
      present: ["job_error"],
      absent: ["oom_kill", "cancelled"],
      unseen: SHORT,
      cites: ["Traceback (most recent call last):", "KeyError: 'checkpoint_dir'"],
    },
  },
  {
    name: "healthy",
    description: "holds 60 MB of its 200 MB for 40 s and exits 0",
    phase: "proc",
    request: { cpus: 1, memMb: 200, timeMinutes: 2 },
    script: python(holdMemory(60, 40)),
    expect: { present: [], absent: ["job_error", "memory_overrequested"], unseen: [] },
  },
  {
    name: "cancelled",
    description: "is cancelled with scancel 2 s after it started",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 5 },
    script: '#!/bin/bash\necho started\nsleep 2\nscancel "$SLURM_JOB_ID"\nsleep 600\n',
    expect: { present: ["cancelled"], absent: ["job_error"], unseen: SHORT },
  },
  {
    name: "idle-gpus",
    description: "is allocated GPU 0 and never uses it",
    phase: "proc",
    request: { cpus: 1, memMb: 64, timeMinutes: 2 },
    script: "#!/bin/bash\nsleep 40\n",
    gpu: { index: 0, reading: IDLE_READING },
    expect: { present: ["gpus_unused"], absent: ["gpu_underutilised"], unseen: [] },
  },
  {
    name: "stalled-data-loader",
    description: "reads its input with 3 loader processes waiting on the disk while GPU 1 waits at 12%",
    phase: "proc",
    request: { cpus: 1, memMb: 128, timeMinutes: 2 },
    script: python(directReadLoader(3, 40)),
    gpu: { index: 1, reading: STARVED },
    expect: {
      present: ["stalled_data_loader"],
      absent: ["gpu_underutilised", "gpus_unused"],
      unseen: [],
      // Three loaders on one reserved core: when the disk answers fast (CI, 2 cores, loaded), they
      // are runnable together, and the threads counted in state R truly exceed the core.
      mayAlso: ["cpu_oversubscribed"],
    },
  },
  {
    name: "xid-application",
    description:
      "trains on GPU 2 until its kernel faults (Xid 31), then fails with CUDA's illegal memory access",
    phase: "proc",
    request: { cpus: 1, memMb: 128, timeMinutes: 2 },
    script: python(trainUntilFault("an illegal memory access was encountered")),
    gpu: { index: 2, reading: BUSY },
    fault: "xid-application",
    expect: { present: ["gpu_fault_application"], absent: ["gpu_fault_hardware", "job_error"], unseen: [] },
  },
  {
    name: "xid-gpu-lost",
    description: "trains on GPU 3 until it falls off the bus (Xid 79, nvidia-smi: GPU is lost), then fails",
    phase: "proc",
    request: { cpus: 1, memMb: 128, timeMinutes: 2 },
    script: python(trainUntilFault("unspecified launch failure")),
    gpu: { index: 3, reading: BUSY },
    fault: "xid-gpu-lost",
    expect: {
      present: ["gpu_fault_hardware"],
      absent: ["gpu_fault_application", "job_error"],
      unseen: [],
    },
  },
];

/** The sources of the node that were generated for a class (everything else is the real job's). */
export function generatedSources(cls: ScenarioClass): string {
  const out: string[] = [];
  if (cls.phase === "cgroup") out.push("cgroup v2");
  if (cls.gpu) out.push("nvidia-smi");
  if (cls.fault) out.push("kmsg");
  return out.length ? out.join(" + ") : "none";
}
