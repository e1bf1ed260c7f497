import { execFile } from "node:child_process";
import { type CancelResult, clip, type JobCanceller } from "./job-canceller.js";

/** Options of {@link ScancelCanceller}. */
export type ScancelCancellerOptions = {
  /** The command and its first arguments; `--verbose` and the job id are appended. @default ["scancel"] */
  command?: readonly string[];
  /** Deadline of one cancellation. @default 10000 */
  timeoutMs?: number;
  /** The command's environment (e.g. SLURM_CONF). @default process.env */
  env?: NodeJS.ProcessEnv;
};

// SLURM job ids: 1234, an array task 1234_7, a het component 1234+1. Anything else is refused
// before a command line is built (the id is an argument, never shell text, but scancel reads
// options from arguments that start with a dash).
const SLURM_JOB_ID = /^\d+(?:_\d+)?(?:\+\d+)?$/;

/**
 * Cancels SLURM jobs with `scancel --verbose <id>` (or the configured command, e.g. `ssh slurm-ctl
 * scancel` where the server is not on a SLURM host), run without a shell. scancel (22.05) exits 0
 * even when the controller refuses, e.g. an id it does not know, and says so only with
 * `--verbose` (`scancel: error: Kill job error on job id 999999: Invalid job id specified`): so a
 * cancellation succeeded when the command exits 0 and prints no `error:` line.
 *
 * @example
 * ```ts
 * const scancel = new ScancelCanceller({ command: ["scancel"] });
 * await scancel.cancel("4242"); // { ok: true, detail: "scancel 4242: exit 0" }
 * ```
 */
export class ScancelCanceller implements JobCanceller {
  readonly executor = "scancel";
  readonly #command: readonly string[];
  readonly #timeoutMs: number;
  readonly #env: NodeJS.ProcessEnv | undefined;

  constructor(options: ScancelCancellerOptions = {}) {
    this.#command = options.command && options.command.length > 0 ? options.command : ["scancel"];
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#env = options.env;
  }

  cancel(jobId: string): Promise<CancelResult> {
    if (!SLURM_JOB_ID.test(jobId))
      return Promise.resolve({ ok: false, detail: `not a SLURM job id: ${clip(jobId, 256)}` });
    const [file, ...args] = this.#command;
    const argv = [...args, "--verbose", jobId];
    const shown = [file, ...argv].join(" ");
    return new Promise((resolve) => {
      execFile(
        file,
        argv,
        { timeout: this.#timeoutMs, env: this.#env ?? process.env, maxBuffer: 64 * 1024 },
        (error, stdout, stderr) => {
          const said = `${stderr}${stdout}`.trim();
          if (!error) {
            const refused = /^scancel: error:/m.test(said);
            return resolve({ ok: !refused, detail: clip(`${shown}: exit 0${said ? `: ${said}` : ""}`) });
          }
          const how = error.killed
            ? `timed out after ${this.#timeoutMs} ms`
            : typeof error.code === "number"
              ? `exit ${error.code}`
              : String(error.code ?? error.message);
          resolve({ ok: false, detail: clip(`${shown}: ${how}${said ? `: ${said}` : ""}`) });
        },
      );
    });
  }
}
