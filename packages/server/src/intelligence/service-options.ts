import type { ObjectStore } from "../data-plane/objects/object-store.js";
import type { DataPlaneStorage } from "../data-plane/storage/storage.js";
import type { ComparisonThresholds } from "./accuracy/compare-backtests.js";
import type { ModeSetting } from "./accuracy/shadow-mode.js";
import type { DiagnosisInputOptions } from "./diagnosis/diagnosis-input.js";
import type { LlmProseAdapter } from "./diagnosis/explain/llm-adapter.js";
import type { LinkWindow } from "./recording/link-predictions.js";
import type { PredictionRecorderOptions } from "./recording/prediction-recorder.js";
import type { Engine } from "./registry/served-model.js";
import type { ReadinessThresholds } from "./serving/readiness.js";
import type { RoundingOptions } from "./serving/wire-prediction.js";
import type { TrainResourceModelOptions } from "./training/train-resource-model.js";
import type { TrainingPlace } from "./training/training-runner.js";

/** A structured logger; pino's and fastify's `app.log` fit. */
export type ServiceLogger = {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
};

/** Options of {@link IntelligenceService}. */
export type IntelligenceServiceOptions = {
  /** The data plane's storage (jobs, samples, events, artifacts; the intelligence tables beside). */
  storage: DataPlaneStorage;
  /** Where model files go (and submissions are read from). */
  objectStore: ObjectStore;
  /** Log lines of training, loading and background failures. @default silent */
  log?: ServiceLogger;
  /**
   * `auto`: shadow for `shadowDays` from the deployment's first start, then live; `live` or
   * `shadow` force the mode.
   * @default "auto"
   */
  mode?: ModeSetting;
  /** Days of shadow mode from the first start recorded in the database. @default 30 */
  shadowDays?: number;
  /** Milliseconds between scheduled retrainings; 0 turns the schedule off. @default 86400000 (a day) */
  retrainIntervalMs?: number;
  /**
   * Milliseconds between refits of the calibration of the model in service on the jobs that ended
   * since (the trees unchanged); 0 turns them off. @default 21600000 (6 hours)
   */
  recalibrateIntervalMs?: number;
  /** Fewest jobs ended since the last calibration for a recalibration to run. @default 50 */
  minRecalibrationJobs?: number;
  /** Train in the background at start when no model is active. @default true */
  trainOnStart?: boolean;
  /** Where training runs: a worker thread (predictions go on) or inline. @default "worker" */
  trainIn?: TrainingPlace;
  /** Trainer options (trees, depth, calibration) of the prediction helper. @default the trainer's defaults */
  training?: TrainResourceModelOptions;
  /** Fewest completed jobs with measured usage before a resource gets a model. @default 500 */
  minJobsPerResource?: number;
  /** Share of jobs (the last submitted) of the quick holdout backtest of each new model. @default 0.15 */
  holdoutShare?: number;
  /** Fewest unseen holdout jobs for comparing with the active model on the same jobs. @default 100 */
  minComparisonJobs?: number;
  /** When a new model counts as worse than the active one. @default COMPARISON_THRESHOLDS */
  comparison?: Partial<ComparisonThresholds>;
  /** Milliseconds between refreshes of the job history, the active model and the policy. @default 10000 */
  refreshIntervalMs?: number;
  /**
   * Whether this server leads the replicas on its database (a `LeaderLease`): only the leader
   * runs the scheduled training and recalibration; every replica still trains on demand.
   * @default () => true
   */
  isLeader?: () => boolean;
  /** Steps each scheduler takes resources in. @default SLURM: 1 MiB, 1 core, 60 s; Kubernetes: 1 MiB, 1 millicore, 60 s */
  rounding?: RoundingOptions;
  /** Write-behind recording of predictions. @default PredictionRecorder's defaults */
  recorder?: PredictionRecorderOptions;
  /** How a prediction is tied to its job in time. @default LINK_WINDOW */
  link?: Partial<LinkWindow>;
  /** Days of predictions the accuracy report compares. @default 84 */
  accuracyDays?: number;
  /** When the site is ready to go live. @default READINESS_THRESHOLDS */
  readiness?: Partial<ReadinessThresholds>;
  /** How tree ensembles are evaluated when serving. @default "onnx" */
  engine?: Engine;
  /** Jobs per database page when reading history. @default 5000 */
  pageSize?: number;
  /** Diagnosis inputs gathered from storage. @default DiagnosisInputOptions' defaults */
  diagnosis?: DiagnosisInputOptions;
  /**
   * A language model that may rephrase each diagnosis (`prose`); its failures and rejected answers
   * are logged and the diagnosis is served without prose. @default undefined (none)
   */
  llm?: LlmProseAdapter;
  /** The clock. @default () => new Date() */
  now?: () => Date;
};
