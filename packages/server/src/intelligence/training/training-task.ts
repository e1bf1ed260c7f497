import type { HistoryJob } from "../history-job.js";
import {
  type RecalibrateCandidateOptions,
  type RecalibrationResult,
  recalibrateCandidate,
} from "./recalibrate-candidate.js";
import { type CandidateResult, type TrainCandidateOptions, trainCandidate } from "./train-candidate.js";

/** What the training worker (or the calling thread) does with the jobs: train, or recalibrate. */
export type TrainingTask =
  | { kind: "train"; options: TrainCandidateOptions }
  | { kind: "recalibrate"; options: RecalibrateCandidateOptions };

/** The result of each kind of task. */
export type TaskResult<T extends TrainingTask> = T extends { kind: "train" }
  ? CandidateResult
  : RecalibrationResult;

/** Runs a task on jobs sorted by submit time. */
export function performTask<T extends TrainingTask>(
  jobs: readonly HistoryJob[],
  task: T,
  onProgress: (phase: string, done: number) => void = () => {},
): TaskResult<T> {
  if (task.kind === "train") return trainCandidate(jobs, task.options, onProgress) as TaskResult<T>;
  onProgress("recalibrate", 0);
  const result = recalibrateCandidate(jobs, task.options);
  onProgress("done", 1);
  return result as TaskResult<T>;
}
