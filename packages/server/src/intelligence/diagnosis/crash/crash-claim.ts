import type { Finding } from "@jobsight/schemas";
import type { CrashSignature } from "./crash-signature.js";

/** How the claim of each recognised crash opens: stable, so a summary can tell a named cause. */
const OPENINGS: Readonly<Record<CrashSignature["cause"], string>> = {
  cuda_out_of_memory: "The job ran out of GPU memory (CUDA out of memory)",
  python_exception: "The job's Python program stopped on an uncaught exception",
  segfault: "The job's program crashed with a segmentation fault (SIGSEGV)",
  mpi_abort: "The job's MPI program aborted itself",
};

/** The claim of a recognised crash, opening with its cause's stable phrase; `how` is how the job ended. */
export function crashClaim(crash: CrashSignature, how: string): string {
  const open = OPENINGS[crash.cause];
  switch (crash.cause) {
    case "cuda_out_of_memory":
      return `${open} and its program ${how}. The GPU's own memory was full, not the node's: a smaller batch or model, or a GPU with more memory, avoids it.`;
    case "python_exception":
      return `${open} and ${how}: ${crash.detail ?? "the traceback's last line was not in the output read"}.`;
    case "segfault":
      return `${open} and ${how}: it touched memory it did not own, a bug in the program or a library it loads, or a stack too small.${crash.signalled ? "" : " Only its output says so; the scheduler recorded no signal 11."}`;
    case "mpi_abort":
      return `${open} (MPI_Abort${crash.detail ? ` with error code ${crash.detail}` : ""}) and ${how}: a rank called it on an error of its own, which the lines before the abort in its output describe.`;
  }
}

/**
 * Whether a finding is the job's own error with its crash recognised (a segfault, an uncaught
 * Python exception, CUDA out of memory, an MPI abort): that names the failure's cause.
 */
export function namesCrash(f: Finding): boolean {
  return f.kind === "job_error" && Object.values(OPENINGS).some((o) => f.claim.startsWith(o));
}
