import { setTimeout as sleep } from "node:timers/promises";
import { SlurmTestError } from "./slurm-test-error.js";

/** How {@link poll} waits. */
export type PollOptions = {
  /** What is being waited for, for the timeout message. */
  what: string;
  /** Give up after this long. @default 30_000 */
  timeoutMs?: number;
  /** Pause between probes. @default 200 */
  intervalMs?: number;
};

/**
 * Calls `probe` until it returns something other than `undefined` and resolves with that. A probe
 * whose command fails (`SLURM_COMMAND_FAILED`, or any non-harness error) counts as "not yet" and
 * its last error becomes the cause of the timeout; any other `SlurmTestError` ends the wait at once.
 *
 * @example
 * const state = await poll(async () => (await jobState(id)) === "RUNNING" || undefined, { what: "job running" });
 */
export async function poll<T>(probe: () => Promise<T | undefined>, options: PollOptions): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 200 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof SlurmTestError && error.code !== "SLURM_COMMAND_FAILED") throw error;
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new SlurmTestError(
        "SLURM_WAIT_TIMEOUT",
        `timed out after ${timeoutMs} ms waiting for ${what}${detail}`,
        {
          cause: lastError,
        },
      );
    }
    await sleep(intervalMs);
  }
}
