import { parentPort } from "node:worker_threads";
import type { HistoryJob } from "../history-job.js";
import { type TrainCandidateOptions, trainCandidate } from "./train-candidate.js";

/** Messages the service sends to the training worker. */
export type TrainingWorkerInput =
  | { type: "start"; options: TrainCandidateOptions }
  | { type: "jobs"; jobs: HistoryJob[] }
  | { type: "end" };

// The worker's entry: gathers the jobs page by page, trains once they are all in, and answers
// with the result or the error. It never touches storage; the service stores what it returns.
const port = parentPort;
if (port) {
  const jobs: HistoryJob[] = [];
  let options: TrainCandidateOptions | undefined;
  port.on("message", (message: TrainingWorkerInput) => {
    if (message.type === "start") options = message.options;
    else if (message.type === "jobs") for (const job of message.jobs) jobs.push(job);
    else {
      try {
        if (!options) throw new Error("the training worker got no options");
        const result = trainCandidate(jobs, options, (phase, done) =>
          port.postMessage({ type: "progress", phase, done }),
        );
        // Copied, not transferred: the ONNX bytes may be views of a shared buffer pool.
        port.postMessage({ type: "result", result });
      } catch (error) {
        const e = error as Error;
        port.postMessage({ type: "error", message: e.message, stack: e.stack });
      }
    }
  });
}
