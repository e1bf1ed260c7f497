import type { JobOutcome, JobStep } from "@jobsight/schemas";
import type { JobLogLine } from "../input.js";

/** How a job's own program crashed, as its stderr and exit status show it. */
export type CrashCause = "cuda_out_of_memory" | "python_exception" | "segfault" | "mpi_abort";

/** A recognised crash: its cause, the lines that show it (verbatim) and what they say. */
export interface CrashSignature {
  readonly cause: CrashCause;
  /** The lines cited, in the order the job wrote them. */
  readonly lines: readonly JobLogLine[];
  /** For a Python exception, its last line (`ValueError: …`); for an MPI abort, its error code. */
  readonly detail?: string;
  /** For a segfault: whether signal 11 (or exit code 139) was recorded, not only printed. */
  readonly signalled?: boolean;
}

const SIGSEGV = 11;
const CUDA_OOM =
  /CUDA out of memory|CUDA error: out of memory|torch\.(cuda\.)?OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED/;
const TRACEBACK = /^Traceback \(most recent call last\):/;
const SEGFAULT = /Segmentation fault|SIGSEGV|signal 11\b/;
const MPI_ABORT = /MPI_ABORT was invoked|application called MPI_Abort/;
const MPI_CODE = /with errorcode (\d+)|MPI_Abort\([^,]*, *(-?\d+)\)/;

/**
 * The crash a job's output and exit status point at, or undefined when none is recognised. A CUDA
 * out-of-memory comes first (it ends a Python traceback too), then an uncaught Python exception
 * (mpi4py aborts the job after one), a segmentation fault, and an MPI abort.
 *
 * @example
 * ```ts
 * crashSignature(lines, { state: "FAILED", signal: 11 })?.cause; // "segfault"
 * ```
 */
export function crashSignature(
  lines: readonly JobLogLine[],
  outcome: JobOutcome | undefined,
  steps: readonly JobStep[] = [],
): CrashSignature | undefined {
  // A program that raised exits on its own; one SIGKILLed or SIGTERMed was stopped from outside.
  if (!killedFromOutside(outcome)) {
    const cuda = lines.filter((l) => CUDA_OOM.test(l.line));
    if (cuda.length > 0) return { cause: "cuda_out_of_memory", lines: cuda.slice(-2) };
    const python = pythonException(lines);
    if (python) return python;
  }
  const signalled =
    outcome?.signal === SIGSEGV ||
    outcome?.derivedSignal === SIGSEGV ||
    outcome?.exitCode === 128 + SIGSEGV ||
    steps.some((s) => s.signal === SIGSEGV);
  const segv = lines.filter((l) => SEGFAULT.test(l.line));
  if (signalled || segv.length > 0) return { cause: "segfault", lines: segv.slice(-2), signalled };
  const mpi = lines.filter((l) => MPI_ABORT.test(l.line));
  if (mpi.length > 0) {
    const code = lines.map((l) => MPI_CODE.exec(l.line)).find((m) => m);
    const detail = code ? (code[1] ?? code[2]) : undefined;
    return { cause: "mpi_abort", lines: mpi.slice(-2), ...(detail ? { detail } : {}) };
  }
  return undefined;
}

/** The last traceback's header and its exception line (the first unindented line after it). */
function killedFromOutside(outcome: JobOutcome | undefined): boolean {
  const signal =
    outcome?.signal ?? ((outcome?.exitCode ?? 0) > 128 ? (outcome?.exitCode ?? 0) - 128 : undefined);
  return signal === 9 || signal === 15;
}

function pythonException(lines: readonly JobLogLine[]): CrashSignature | undefined {
  let at = -1;
  for (let i = lines.length - 1; i >= 0 && at < 0; i--) if (TRACEBACK.test(lines[i].line)) at = i;
  if (at < 0) return undefined;
  const header = lines[at];
  const exception = lines
    .slice(at + 1)
    .find((l) => l.source === header.source && /^[A-Za-z_][\w.]*(: |:?$)/.test(l.line));
  if (!exception) return { cause: "python_exception", lines: [header] };
  return { cause: "python_exception", lines: [header, exception], detail: exception.line };
}
