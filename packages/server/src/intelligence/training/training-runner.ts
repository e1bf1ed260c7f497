import type { Worker } from "node:worker_threads";
import { startModuleWorker } from "../../platform/workers/start-module-worker.js";
import type { HistoryJob } from "../history-job.js";
import type { CandidateResult, TrainCandidateOptions } from "./train-candidate.js";
import { TRAINING_THREAD_LIMITS } from "./training-heap.js";
import { performTask, type TaskResult, type TrainingTask } from "./training-task.js";
import type { TrainingWorkerInput } from "./training-worker.js";

/** Where training runs: a worker thread (predictions go on) or the calling thread (CLI, tests). */
export type TrainingPlace = "worker" | "inline";

/** Progress of a training: a phase (a resource name, `loading`, `done`) and its share done. */
export type TrainingProgress = (phase: string, done: number) => void;

type WorkerMessage<R> =
  | { type: "progress"; phase: string; done: number }
  | { type: "result"; result: R }
  | { type: "error"; message: string; stack?: string };

/** Where and how a task runs. */
export type TaskContext = {
  place: TrainingPlace;
  onProgress?: TrainingProgress;
  signal?: AbortSignal;
  /** Called when a worker was asked for but none can be started (the task then blocks). */
  onInline?: () => void;
};

/**
 * Trains a candidate from pages of jobs (sorted by submit time) in a worker thread, so the event
 * loop of the server keeps serving; inline when asked to or when no worker script is available
 * (a build without the worker entry). `signal` ends the worker.
 *
 * @example
 * ```ts
 * const result = await runTraining(pages, options, { place: "worker", signal });
 * ```
 */
export function runTraining(
  pages: AsyncIterable<HistoryJob[]>,
  options: TrainCandidateOptions,
  context: TaskContext,
): Promise<CandidateResult> {
  return runTask(pages, { kind: "train", options }, context);
}

/**
 * Runs a training or recalibration task on pages of jobs (sorted by submit time), in the training
 * worker when `context.place` is `worker` and one can be started, else on the calling thread.
 */
export async function runTask<T extends TrainingTask>(
  pages: AsyncIterable<HistoryJob[]>,
  task: T,
  context: TaskContext,
): Promise<TaskResult<T>> {
  const worker = context.place === "worker" ? startWorker() : undefined;
  if (!worker) {
    if (context.place === "worker") context.onInline?.();
    const jobs: HistoryJob[] = [];
    for await (const page of pages) for (const j of page) jobs.push(j);
    context.signal?.throwIfAborted();
    return performTask(jobs, task, context.onProgress);
  }
  const done = new Promise<TaskResult<T>>((resolve, reject) => {
    worker.on("message", (m: WorkerMessage<TaskResult<T>>) => {
      if (m.type === "progress") context.onProgress?.(m.phase, m.done);
      else if (m.type === "result") resolve(m.result);
      else reject(new TrainingWorkerError(m.message, m.stack));
    });
    worker.once("error", reject);
    worker.once("exit", (code) =>
      reject(new TrainingWorkerError(`the training worker exited (code ${code})`)),
    );
  });
  // Without a handler, a rejection while pages are still being sent would be unhandled.
  done.catch(() => {});
  const abort = () => void worker.terminate();
  context.signal?.addEventListener("abort", abort, { once: true });
  try {
    post(worker, { type: "start", task });
    for await (const page of pages) {
      context.signal?.throwIfAborted();
      post(worker, { type: "jobs", jobs: page });
    }
    post(worker, { type: "end" });
    return await done;
  } finally {
    context.signal?.removeEventListener("abort", abort);
    await worker.terminate();
  }
}

function post(worker: Worker, message: TrainingWorkerInput): void {
  worker.postMessage(message);
}

/** The training worker beside this module or bundle (see {@link startModuleWorker}). */
function startWorker(): Worker | undefined {
  return startModuleWorker("training-worker", import.meta.url, { resourceLimits: TRAINING_THREAD_LIMITS });
}

/** The training worker failed; the message and stack are the worker's. */
export class TrainingWorkerError extends Error {
  readonly code = "TRAINING_WORKER_FAILED";
  constructor(message: string, stack?: string) {
    super(message);
    this.name = "TrainingWorkerError";
    if (stack) this.stack = stack;
  }
}
