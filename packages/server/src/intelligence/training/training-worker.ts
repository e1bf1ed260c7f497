import { parentPort } from "node:worker_threads";
import type { HistoryJob } from "../history-job.js";
import { performTask, type TrainingTask } from "./training-task.js";

/** Messages the service sends to the training worker. */
export type TrainingWorkerInput =
  | { type: "start"; task: TrainingTask }
  | { type: "jobs"; jobs: HistoryJob[] }
  | { type: "end" };

// The worker's entry: gathers the jobs page by page, runs the task once they are all in, and answers
// with the result or the error. It never touches storage; the service stores what it returns.
const port = parentPort;
if (port) {
  const jobs: HistoryJob[] = [];
  let task: TrainingTask | undefined;
  port.on("message", (message: TrainingWorkerInput) => {
    if (message.type === "start") task = message.task;
    else if (message.type === "jobs") for (const job of message.jobs) jobs.push(job);
    else {
      try {
        if (!task) throw new Error("the training worker got no task");
        const result = performTask(jobs, task, (phase, done) =>
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
