import { COMPARISON_THRESHOLDS } from "../accuracy/compare-backtests.js";
import { BackgroundLoop } from "../background-loop.js";
import type { ActiveModel } from "../registry/active-model.js";
import type { ModelRegistry } from "../registry/model-registry.js";
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
 * training lock.
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

  constructor(options: ModelUpkeepOptions) {
    this.#o = options;
    const o = options.service;
    this.#retrainMs = o.retrainIntervalMs ?? 86_400_000;
    this.#recalibrateMs = o.recalibrateIntervalMs ?? 21_600_000;
    this.#retrainLoop = new BackgroundLoop({
      // 0 turns the schedule off (see start); the loop itself still trains on demand.
      intervalMs: this.#retrainMs || 86_400_000,
      run: async () => void (await this.train({ trigger: "schedule" })),
      onError: (error, failures) => options.log.error({ err: error, failures }, "scheduled training failed"),
    });
    this.#recalibrateLoop = new BackgroundLoop({
      intervalMs: this.#recalibrateMs || 21_600_000,
      run: async () => void (await this.recalibrate("schedule")),
      onError: (error, failures) =>
        options.log.error({ err: error, failures }, "scheduled recalibration failed"),
    });
  }

  /** Starts the schedules (each off when its interval is 0); trains at once when `trainNow`. */
  start(trainNow: boolean): void {
    if (this.#retrainMs > 0) this.#retrainLoop.start();
    if (this.#recalibrateMs > 0) this.#recalibrateLoop.start();
    if (trainNow) void this.#retrainLoop.runNow();
  }

  /** Trains at once in the background (a model of another feature set is in the registry). */
  retrainSoon(): void {
    if (!this.#o.signal.aborted) void this.#retrainLoop.runNow();
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
