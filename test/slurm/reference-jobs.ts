import { existsSync } from "node:fs";

/** The reference set: one job per way a SLURM job ends. */
export type ReferenceJobName =
  | "timeout"
  | "completes"
  | "exitsOne"
  | "overMemory"
  | "cancelled"
  | "healthyLong";

/** What one reference job asks for and what SLURM 22.05 without cgroups reports for it. */
export type ReferenceJobSpec = {
  name: ReferenceJobName;
  /** `--job-name`; the output file is `<jobsDir>/<jobName>-<id>.out`. */
  jobName: string;
  description: string;
  request: { cpus: number; memMb: number; timeMinutes: number };
  script: string;
  /**
   * What `sacct -P` says of the job (State's first word, ExitCode) and of its batch step, as
   * observed on this cluster (shared/slurm/README.md). `batch` lists every outcome seen: the timeout
   * job's step ends either CANCELLED 0:15 or TIMEOUT 0:0, depending on which record reaches
   * slurmdbd first. Other suites use these to know what each job should look like.
   */
  expected: { state: string; exitCode: string; batch: { state: string; exitCode: string }[] };
};

// Debian's own interpreter when present, so a pyenv shim does not add processes to the step.
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const MB = 1024 * 1024;

/** Python that fills (so every page is resident) `mb` MB, prints it, then sleeps `seconds`. */
function holdMemory(mb: number, seconds: number, chunkMb = 10): string {
  return [
    `${PYTHON} - <<'PY'`,
    "import sys, time",
    "held = []",
    `for _ in range(${Math.ceil(mb / chunkMb)}):`,
    `    held.append(b"x" * ${chunkMb * MB})`,
    `print("holding", len(held) * ${chunkMb}, "MB", flush=True)`,
    `for _ in range(${seconds}):`,
    "    time.sleep(1)",
    'print("done", flush=True)',
    "PY",
  ].join("\n");
}

/**
 * The jobs, slowest first: the timeout needs ~70-90 s (1 minute limit plus slurmctld's 30 s check),
 * so it is submitted before everything else.
 */
export const REFERENCE_JOBS: readonly ReferenceJobSpec[] = [
  {
    name: "timeout",
    jobName: "ref-timeout",
    description: "sleeps past its --time=1",
    request: { cpus: 1, memMb: 64, timeMinutes: 1 },
    script: "#!/bin/bash\necho started\nsleep 600\n",
    expected: {
      state: "TIMEOUT",
      exitCode: "0:0",
      batch: [
        { state: "CANCELLED", exitCode: "0:15" },
        { state: "TIMEOUT", exitCode: "0:0" },
      ],
    },
  },
  {
    name: "healthyLong",
    jobName: "ref-healthy-long",
    description: "holds 100 MB of its 256 MB for ~60 s and exits 0",
    request: { cpus: 1, memMb: 256, timeMinutes: 5 },
    script: `#!/bin/bash\n${holdMemory(100, 60)}\n`,
    expected: { state: "COMPLETED", exitCode: "0:0", batch: [{ state: "COMPLETED", exitCode: "0:0" }] },
  },
  {
    name: "completes",
    jobName: "ref-completes",
    description: "holds 60 MB of its 200 MB for ~4 s and exits 0",
    request: { cpus: 1, memMb: 200, timeMinutes: 2 },
    script: `#!/bin/bash\n${holdMemory(60, 4)}\n`,
    expected: { state: "COMPLETED", exitCode: "0:0", batch: [{ state: "COMPLETED", exitCode: "0:0" }] },
  },
  {
    name: "exitsOne",
    jobName: "ref-exits-one",
    description: "prints a line and exits 1",
    request: { cpus: 1, memMb: 64, timeMinutes: 2 },
    script: "#!/bin/bash\necho 'about to fail'\nexit 1\n",
    expected: { state: "FAILED", exitCode: "1:0", batch: [{ state: "FAILED", exitCode: "1:0" }] },
  },
  {
    name: "overMemory",
    jobName: "ref-over-memory",
    description: "fills 300 MB under --mem=100M and is killed by the accounting poll",
    request: { cpus: 1, memMb: 100, timeMinutes: 3 },
    script: `#!/bin/bash\n${holdMemory(300, 60)}\n`,
    expected: { state: "FAILED", exitCode: "0:9", batch: [{ state: "CANCELLED", exitCode: "0:9" }] },
  },
  {
    name: "cancelled",
    jobName: "ref-cancelled",
    description: "is cancelled with scancel 2 s after it started running",
    request: { cpus: 1, memMb: 64, timeMinutes: 5 },
    // The job cancels itself: the same RPC from the same user as an outside scancel, with no
    // harness process having to watch for the moment it runs. SLURM_CONF comes with the
    // submitter's environment (sbatch exports it).
    script: '#!/bin/bash\necho started\nsleep 2\nscancel "$SLURM_JOB_ID"\nsleep 600\n',
    // Seen both ways: killed by the SIGTERM, or the 15 recorded as the step's exit code.
    expected: {
      state: "CANCELLED",
      exitCode: "0:0",
      batch: [
        { state: "CANCELLED", exitCode: "0:15" },
        { state: "FAILED", exitCode: "15:0" },
      ],
    },
  },
];

/** `sbatch` arguments for a spec, its output going to `<jobsDir>/<jobName>-<id>.out`. */
export function referenceJobArgs(spec: ReferenceJobSpec, jobsDir: string): string[] {
  return [
    `--job-name=${spec.jobName}`,
    "--ntasks=1",
    `--cpus-per-task=${spec.request.cpus}`,
    `--mem=${spec.request.memMb}M`,
    `--time=${spec.request.timeMinutes}`,
    `--output=${jobsDir}/%x-%j.out`,
  ];
}
