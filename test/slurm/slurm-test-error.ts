/** Stable codes so a failing SLURM test says which part broke without parsing messages. */
export type SlurmTestErrorCode =
  | "SLURM_UNAVAILABLE"
  | "SLURM_INSTALL_FAILED"
  | "SLURM_START_FAILED"
  | "SLURM_STOP_FAILED"
  | "SLURM_COMMAND_FAILED"
  | "SLURM_WAIT_TIMEOUT";

/** Raised by the SLURM test harness (install, start-up, commands, waits). */
export class SlurmTestError extends Error {
  readonly code: SlurmTestErrorCode;

  constructor(code: SlurmTestErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SlurmTestError";
    this.code = code;
  }
}
