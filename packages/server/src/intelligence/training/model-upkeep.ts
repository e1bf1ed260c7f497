import { COMPARISON_THRESHOLDS } from "../accuracy/compare-backtests.js";
import { BackgroundLoop } from "../background-loop.js";
import type { ActiveModel } from "../registry/active-model.js";
import type { ModelRegistry } from "../registry/model-registry.js";
import { lineageOf } from "../registry/model-version.js";
import type { IntelligenceServiceOptions, ServiceLogger } from "../service-options.js";
import { type RecalibrationReport, recalibrateAndRegister } from "./model-recalibrator.js";
import { type TrainReport, type TrainSettings, trainAndRegister } from "./model-trainer.js";
import type { TrainingProgress } from "./training-runner.js";

/** Options of {@link ModelUpkeep}: the service's own, and what it shares with the service. */
export type ModelUpkeepOptions = {
  service: IntelligenceServiceOptions;
  registry: ModelRegistry;
  model: ActiveModel;
  log: ServiceLogger;
  /** Ends a training or recalibration in progress when the service stops. */
  signal: AbortSignal;
  now: () => Date;
};

// How often a schedule looks whether its task is due: a replica that took the lease over runs what
// the dead leader owed within this, not a whole interval after its own start.
const SCHEDULE_CHECK_MS = 600_000;

/**
 * Whether a scheduled task is due: `intervalMs` after the later of the last one recorded in the
 * registry (by any replica) and the last one this server tried (a training with too few jobs
 * records nothing, and is not retried at every check). Times in ms since the epoch.
 *
 * @example
 * ```ts
 * isDue(Date.parse(newest.createdAt), undefined, 86_400_000, Date.now());
 * ```
 */
export function isDue(
  lastRecorded: number | undefined,
  lastTried: number | undefined,
  intervalMs: number,
  now: number,
): boolean {
  const last = Math.max(lastRecorded ?? Number.NEGATIVE_INFINITY, lastTried ?? Number.NEGATIVE_INFINITY);
  return now - last >= intervalMs;
}

/** One asked-for training. */
export type TrainAsk = {
  trigger?: string;
  training?: TrainSettings["training"];
  onProgress?: TrainingProgress;
};

/**
 * Keeps the model in service current: trains a new one on a schedule and on demand (the previous
 * one stays when the new one backtests worse), and between trainings refits the calibration of the
 * one in service on the jobs that ended since. One task at a time per server; across servers, the
 * training lock, and the schedules run on the leader of the replicas only (`isLeader`).
 *
 * @example
 * ```ts
 * const upkeep = new ModelUpkeep({ service: options, registry, model, log, signal, now: () => new Date() });
 * upkeep.start(true);
 * await upkeep.recalibrate("demand");
 * await upkeep.stop();
 * ```
 */
export class ModelUpkeep {
  readonly #o: ModelUpkeepOptions;
  readonly #retrainLoop: BackgroundLoop;
  readonly #recalibrateLoop: BackgroundLoop;
  readonly #retrainMs: number;
  readonly #recalibrateMs: number;
  #task: Promise<TrainReport | RecalibrationReport> | undefined;
  #training: Promise<TrainReport> | undefined;
  #triedTrain: number | undefined;
  #triedRecalibrate: number | undefined;

  constructor(options: ModelUpkeepOptions) {
    this.#o = options;
    const o = options.service;
    this.#retrainMs = o.retrainIntervalMs ?? 86_400_000;
    this.#recalibrateMs = o.recalibrateIntervalMs ?? 21_600_000;
    this.#retrainLoop = new BackgroundLoop({
      // 0 turns the schedule off (see start); the loop itself still trains on demand.
      intervalMs: Math.min(this.#retrainMs || 86_400_000, SCHEDULE_CHECK_MS),
      run: async () => {
        if (!this.#leads() || !(await this.#due("train"))) return;
        this.#triedTrain = this.#o.now().getTime();
        await this.train({ trigger: "schedule" });
      },
      onError: (error, failures) => options.log.error({ err: error, failures }, "scheduled training failed"),
    });
    this.#recalibrateLoop = new BackgroundLoop({
      intervalMs: Math.min(this.#recalibrateMs || 21_600_000, SCHEDULE_CHECK_MS),
      run: async () => {
        if (!this.#leads() || !(await this.#due("recalibrate"))) return;
        this.#triedRecalibrate = this.#o.now().getTime();
        await this.recalibrate("schedule");
      },
      onError: (error, failures) =>
        options.log.error({ err: error, failures }, "scheduled recalibration failed"),
    });
  }

  /** Starts the schedules (each off when its interval is 0); trains at once when `trainNow`. */
  start(trainNow: boolean): void {
    if (this.#retrainMs > 0) this.#retrainLoop.start();
    if (this.#recalibrateMs > 0) this.#recalibrateLoop.start();
    if (trainNow) this.#trainInBackground();
  }

  /** Trains at once in the background (a model of another feature set is in the registry). */
  retrainSoon(): void {
    if (!this.#o.signal.aborted) this.#trainInBackground();
  }

  // On any replica, leader or not (the training lock keeps it to one at a time): with no servable
  // model, predictions wait for one, and the lease may not be settled yet at start.
  #trainInBackground(): void {
    this.train({ trigger: "schedule" }).catch((error) =>
      this.#o.log.error({ err: error, failures: 1 }, "scheduled training failed"),
    );
  }

  /** Stops the schedules and waits for the task in progress (ended by the service's signal). */
  async stop(): Promise<void> {
    await Promise.all([this.#retrainLoop.stop(), this.#recalibrateLoop.stop()]);
    await this.#task?.catch(() => {});
  }

  /** Trains a new model now; a training in progress is awaited instead, a recalibration first. */
  train(ask: TrainAsk = {}): Promise<TrainReport> {
    if (this.#training) return this.#training;
    const training = this.#after(() => this.#train(ask)).finally(() => {
      this.#training = undefined;
    });
    this.#training = training;
    return training;
  }

  /**
   * Refits the calibration of the model in service on the jobs that ended since it was calibrated,
   * and puts it into service as the next calibration revision; nothing when too few jobs ended.
   */
  recalibrate(trigger = "demand"): Promise<RecalibrationReport> {
    return this.#after(() => this.#recalibrate(trigger));
  }

  // Of several replicas on one database, only the leader keeps the schedule (the training lock
  // alone would let each replica train once per interval, one after the other).
  #leads(): boolean {
    return this.#o.service.isLeader?.() ?? true;
  }

  // Trainings count from the newest trained model (revision 0), recalibrations from the newest row.
  async #due(task: "train" | "recalibrate"): Promise<boolean> {
    const rows = await this.#o.registry.list(50);
    const last = task === "train" ? rows.find((r) => lineageOf(r.version).revision === 0) : rows[0];
    const recorded = last ? Date.parse(last.createdAt) : undefined;
    return task === "train"
      ? isDue(recorded, this.#triedTrain, this.#retrainMs, this.#o.now().getTime())
      : isDue(recorded, this.#triedRecalibrate, this.#recalibrateMs, this.#o.now().getTime());
  }

  #after<T extends TrainReport | RecalibrationReport>(next: () => Promise<T>): Promise<T> {
    const task = (this.#task ?? Promise.resolve()).catch(() => {}).then(next);
    this.#task = task;
    return task;
  }

  async #train(ask: TrainAsk): Promise<TrainReport> {
    const { service: o, model, log } = this.#o;
    await model.loadOnce();
    const trigger = ask.trigger ?? "demand";
    const report = await trainAndRegister(
      o.storage.pool,
      this.#o.registry,
      o.storage.artifacts,
      model.served?.manifest,
      {
        place: o.trainIn ?? "worker",
        training: ask.training ?? o.training,
        minJobs: o.minJobsPerResource ?? 500,
        holdoutShare: o.holdoutShare ?? 0.15,
        minComparisonJobs: o.minComparisonJobs ?? 100,
        comparison: { ...COMPARISON_THRESHOLDS, ...o.comparison },
        pageSize: o.pageSize ?? 5000,
      },
      this.#run(trigger, ask.onProgress),
    );
    log.info({ ...report, trigger }, report.accepted ? "new model in service" : "new model not in service");
    if (report.accepted) await model.serve();
    return report;
  }

  async #recalibrate(trigger: string): Promise<RecalibrationReport> {
    const { service: o, model, log } = this.#o;
    await model.loadOnce();
    const report = await recalibrateAndRegister(
      o.storage.pool,
      this.#o.registry,
      o.storage.artifacts,
      model.served?.manifest,
      {
        place: o.trainIn ?? "worker",
        training: o.training,
        minNewJobs: o.minRecalibrationJobs ?? 50,
        pageSize: o.pageSize ?? 5000,
      },
      this.#run(trigger, undefined),
    );
    log.info(
      { ...report, trigger },
      report.recalibrated ? "recalibrated model in service" : "not recalibrated",
    );
    if (report.recalibrated) await model.serve();
    return report;
  }

  #run(trigger: string, onProgress: TrainingProgress | undefined) {
    return {
      trigger,
      now: this.#o.now(),
      signal: this.#o.signal,
      onProgress,
      onInline: () =>
        this.#o.log.warn(
          {},
          "no training worker in this build: training runs on the main thread and delays requests",
        ),
    };
  }
}
