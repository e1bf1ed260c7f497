import { createWriteStream, fchmodSync, openSync, type WriteStream } from "node:fs";
import type { ResourceName } from "@jobsight/schemas";

/**
 * One scored prediction of a backtest, as `--predictions` writes it (one JSON line each), so that
 * every figure of the report can be recomputed outside the project. Memory in bytes, walltime in
 * seconds, cores and GPUs as counts. `censored`: the job was killed for this resource, so `actual`
 * is only a lower bound of its need.
 */
export type PredictionLine = {
  job: string;
  resource: ResourceName;
  status: "recommended" | "insufficient_evidence";
  value: number | null;
  low: number | null;
  high: number | null;
  confidence: number | null;
  actual: number;
  censored: boolean;
  request: number | null;
  /** The model that made it: the backtest's training it came from (`bt-<n>`), n from 1. */
  modelVersion: string;
};

// Owner read and write only: the lines name jobs and users.
const JOB_DATA_FILE_MODE = 0o600;

/** Where a backtest sends its scored predictions. */
export type PredictionSink = (line: PredictionLine) => void;

/** A file of JSON lines, written as predictions come; {@link close} waits until all are on disk. */
export type PredictionFile = { sink: PredictionSink; close(): Promise<void> };

/**
 * Opens `path` for `jobsight backtest --predictions`: one JSON line per scored prediction. The
 * file is created at once, so a path that cannot be written fails here, before any work. It holds
 * job data (names, users, usage), so it is readable by its owner only (0600), an existing file
 * narrowed too, whatever the umask.
 *
 * @example
 * ```ts
 * const file = openPredictionFile("predictions.jsonl");
 * await runBacktest({ trace, onPrediction: file.sink });
 * await file.close();
 * ```
 */
export function openPredictionFile(path: string): PredictionFile {
  const fd = openSync(path, "w", JOB_DATA_FILE_MODE);
  fchmodSync(fd, JOB_DATA_FILE_MODE);
  const out: WriteStream = createWriteStream(path, { fd });
  let failure: Error | undefined;
  out.on("error", (error) => {
    failure ??= error;
  });
  return {
    sink: (line) => {
      out.write(`${JSON.stringify(line)}\n`);
    },
    close: () =>
      new Promise((resolve, reject) => {
        out.end(() => (failure ? reject(failure) : resolve()));
        out.once("error", reject);
      }),
  };
}
