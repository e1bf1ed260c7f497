import type {
  AccuracyReport,
  Diagnosis,
  JobRecord,
  JobSpec,
  Policy,
  Prediction,
  PredictionRequest,
} from "@jobsight/schemas";
import { recordFirstStart } from "../data-plane/stores/deployment-state.js";
import { DEFAULT_POLICY, loadPolicy, savePolicy } from "../data-plane/stores/policy-store.js";
import type { RecordedPrediction } from "../data-plane/stores/prediction-store.js";
import { NoEarlierModelError } from "../errors.js";
import { buildAccuracyReport } from "./accuracy/accuracy-report.js";
import { type ModeState, modeAt } from "./accuracy/shadow-mode.js";
import { BackgroundLoop } from "./background-loop.js";
import { diagnose } from "./diagnosis/diagnose.js";
import { loadDiagnosisInput } from "./diagnosis/diagnosis-input.js";
import { addProse } from "./diagnosis/explain/llm-adapter.js";
import { LINK_WINDOW } from "./recording/link-predictions.js";
import { PredictionRecorder } from "./recording/prediction-recorder.js";
import { ActiveModel } from "./registry/active-model.js";
import { type ModelSwitch, promoteModel, rollbackModel } from "./registry/model-promotion.js";
import { type ModelRecord, ModelRegistry } from "./registry/model-registry.js";
import type { Engine } from "./registry/served-model.js";
import type { IntelligenceServiceOptions, ServiceLogger } from "./service-options.js";
import { answerEach, answerRequests } from "./serving/answer-requests.js";
import { LiveStateFeed } from "./serving/live-state-feed.js";
import { makePredictions, type PredictionContext } from "./serving/make-predictions.js";
import { predictSpecs, type SpecToPredict } from "./serving/predict-specs.js";
import type { RawOutcome } from "./serving/predictor.js";
import { READINESS_THRESHOLDS } from "./serving/readiness.js";
import type { RecalibrationReport } from "./training/model-recalibrator.js";
import type { TrainReport } from "./training/model-trainer.js";
import { ModelUpkeep, type TrainAsk } from "./training/model-upkeep.js";

const SILENT: ServiceLogger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * The intelligence plane of a deployment: trains the site's model on the data plane's jobs (in a
 * worker thread, on a schedule and on demand, keeping the previous model when a new one
 * backtests worse), serves predictions through ONNX Runtime from the live history of each user
 * and application, applies the policy, records every prediction (shadow mode first), reports
 * accuracy, and diagnoses jobs from what was observed.
 *
 * @example
 * ```ts
 * const service = new IntelligenceService({ storage, objectStore, log: app.log });
 * await service.start();
 * const [prediction] = await service.predict([{ spec }], "alice");
 * await service.stop();
 * ```
 */
export class IntelligenceService {
  readonly #o: IntelligenceServiceOptions;
  readonly #log: ServiceLogger;
  readonly #registry: ModelRegistry;
  readonly #model: ActiveModel;
  readonly #feed: LiveStateFeed;
  readonly #recorder: PredictionRecorder;
  readonly #refreshLoop: BackgroundLoop;
  readonly #upkeep: ModelUpkeep;
  readonly #abort = new AbortController();
  #policy: Policy = DEFAULT_POLICY;
  #firstStart = new Date();
  #ready: Promise<void> | undefined;

  constructor(options: IntelligenceServiceOptions) {
    this.#o = options;
    this.#log = options.log ?? SILENT;
    const pool = options.storage.pool;
    this.#registry = new ModelRegistry(pool, options.objectStore);
    this.#model = new ActiveModel(this.#registry, {
      log: this.#log,
      onIncompatible: () => this.#upkeep.retrainSoon(),
    });
    this.#feed = new LiveStateFeed(pool, { pageSize: options.pageSize });
    this.#recorder = new PredictionRecorder(pool, {
      ...options.recorder,
      onError: (error, pending) => {
        this.#log.error({ err: error, pending }, "recording predictions failed; retrying");
        options.recorder?.onError?.(error, pending);
      },
    });
    this.#refreshLoop = new BackgroundLoop({
      intervalMs: options.refreshIntervalMs ?? 10_000,
      run: () => this.refresh(),
      onError: (error, failures) => this.#log.warn({ err: error, failures }, "intelligence refresh failed"),
    });
    this.#upkeep = new ModelUpkeep({
      service: options,
      registry: this.#registry,
      model: this.#model,
      log: this.#log,
      signal: this.#abort.signal,
      now: () => this.#now(),
    });
  }

  /**
   * Loads the policy, the active model and the job history, then starts the background refresh
   * and retraining (and a first training when no model is active). Resolves when predictions
   * can be served; predictions asked for before wait for it (a large history takes seconds to
   * read), so the host may listen at once.
   */
  start(): Promise<void> {
    this.#ready ??= this.#start();
    return this.#ready;
  }

  async #start(): Promise<void> {
    this.#firstStart = await recordFirstStart(this.#o.storage.pool);
    this.#policy = (await loadPolicy(this.#o.storage.pool)) ?? DEFAULT_POLICY;
    await this.#model.loadOnce();
    await this.#feed.rebuild();
    this.#refreshLoop.start();
    this.#upkeep.start(!this.#model.served && (this.#o.trainOnStart ?? true));
  }

  /** Stops the loops and a training in progress, writes the recorded predictions, frees the model. */
  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.all([this.#refreshLoop.stop(), this.#upkeep.stop()]);
    await this.#recorder
      .close()
      .catch((error) => this.#log.error({ err: error }, "final write of predictions failed"));
    await this.#model.close();
  }

  /** The version of the model in service, or undefined. */
  get activeVersion(): string | undefined {
    return this.#model.served?.version;
  }

  /** Shadow or live, now. */
  mode(): ModeState {
    return modeAt(this.#now(), this.#firstStart, this.#o.mode ?? "auto", this.#o.shadowDays ?? 30);
  }

  /**
   * Predicts and records a batch of requests (in order). A request with an idempotency key
   * already used by the same user on the same cluster gets the first answer again.
   */
  async predict(requests: readonly PredictionRequest[], requestedBy: string): Promise<Prediction[]> {
    await this.#whenReady();
    return answerRequests(requests, this.#recorder, this.#context(requestedBy));
  }

  /**
   * {@link predict}, each answer handed to `each` in request order as soon as it is made (a
   * large batch a slice at a time), with its JSON after the id when it was made now (for
   * `writeAnswer`), for a caller that writes answers out rather than keeping them.
   */
  async predictEach(
    requests: readonly PredictionRequest[],
    requestedBy: string,
    each: (answer: Prediction, tail: Uint8Array | undefined) => void,
  ): Promise<void> {
    await this.#whenReady();
    await answerEach(requests, this.#recorder, this.#context(requestedBy), each);
  }

  /**
   * Predicts and records one job for a scheduler integration, which applies the policy itself and
   * records what it changed: the record holds every resource even in shadow mode (where the
   * caller of {@link predict} sees none).
   */
  async predictRecorded(spec: JobSpec, requestedBy: string): Promise<RecordedPrediction> {
    await this.#whenReady();
    const [recorded] = await makePredictions([{ spec }], this.#context(requestedBy));
    this.#recorder.record([recorded]);
    return recorded;
  }

  /** The model's raw outcomes (unrounded, no policy, not recorded): for checks of the serving path. */
  async predictRaw(
    items: readonly SpecToPredict[],
    engine: Engine = this.#o.engine ?? "onnx",
  ): Promise<RawOutcome[][]> {
    await this.#whenReady();
    return predictSpecs(items, this.#feed.state, this.#model.served, this.#now().getTime() / 1000, engine);
  }

  /** A recorded prediction as its caller got it. */
  getPrediction(id: string): Promise<Prediction | undefined> {
    return this.#recorder.get(id);
  }

  /** Writes every recorded prediction now. */
  flush(): Promise<void> {
    return this.#recorder.flush();
  }

  /** Recorded predictions against what their jobs then did, and whether the site is ready. */
  async accuracy(cluster?: string): Promise<AccuracyReport> {
    await this.#recorder
      .flush()
      .catch((error) => this.#log.warn({ err: error }, "accuracy: unwritten predictions left out"));
    return buildAccuracyReport(this.#o.storage.pool, cluster, this.#now(), this.mode(), {
      days: this.#o.accuracyDays ?? 84,
      link: { ...LINK_WINDOW, ...this.#o.link },
      readiness: { ...READINESS_THRESHOLDS, ...this.#o.readiness },
      maxRows: 1_000_000,
    });
  }

  /** A diagnosis of a job from everything stored about it. */
  async diagnose(record: JobRecord): Promise<Diagnosis> {
    const input = await loadDiagnosisInput(this.#o.storage, this.#o.objectStore, record, {
      ...this.#o.diagnosis,
      now: this.#now().getTime(),
    });
    const plain = diagnose(input, { now: this.#now().toISOString() });
    if (!this.#o.llm) return plain;
    const { diagnosis, status, reason } = await addProse(plain, this.#o.llm);
    if (status !== "added") this.#log.warn({ status, reason }, "diagnosis served without the model's prose");
    return diagnosis;
  }

  /** The policy in force. */
  policy(): Policy {
    return this.#policy;
  }

  /** Stores a policy (already validated) and puts it in force. */
  async setPolicy(policy: Policy, setBy: string): Promise<Policy> {
    await savePolicy(this.#o.storage.pool, policy, setBy);
    this.#policy = policy;
    return policy;
  }

  /**
   * Trains a new model now (the one in progress, if any, is awaited instead) and puts it into
   * service unless it backtests worse than the active one. Predictions go on meanwhile.
   */
  train(ask: TrainAsk = {}): Promise<TrainReport> {
    return this.#upkeep.train(ask);
  }

  /**
   * Refits the calibration of the model in service on the jobs that ended since it was calibrated
   * (the trees unchanged) and serves it as the next calibration revision, `<version>.c<n>`.
   */
  recalibrate(trigger = "demand"): Promise<RecalibrationReport> {
    return this.#upkeep.recalibrate(trigger);
  }

  /** Puts the previously active model back into service; returns its version, or undefined when there is none. */
  async rollback(): Promise<string | undefined> {
    try {
      return (await this.rollbackModel()).active;
    } catch (error) {
      if (error instanceof NoEarlierModelError) return undefined;
      throw error;
    }
  }

  /** {@link rollback}, saying which version was in service before; see `rollbackModel`. */
  rollbackModel(): Promise<ModelSwitch> {
    return rollbackModel(this.#registry, this.#model);
  }

  /** Puts a trained version into service after checking it can be served; see `promoteModel`. */
  promote(version: string): Promise<ModelSwitch> {
    return promoteModel(this.#registry, this.#model, version);
  }

  /** Every trained model, newest first. */
  models(): Promise<ModelRecord[]> {
    return this.#registry.list();
  }

  /** Reads the jobs changed since the last refresh, the active model (another server may have trained) and the policy. */
  async refresh(): Promise<void> {
    await this.#feed.refresh();
    await this.#model.refresh();
    this.#policy = (await loadPolicy(this.#o.storage.pool)) ?? DEFAULT_POLICY;
  }

  /**
   * Reads again what another replica changed (told by the database: `ChangeListener`): the active
   * model, the policy, or both (`*`). Never rejects; a failure waits for the next refresh.
   */
  async reloadShared(change: "models" | "policies" | "*"): Promise<void> {
    if (this.#abort.signal.aborted) return;
    try {
      if (change !== "policies") await this.#model.refresh();
      if (change !== "models") this.#policy = (await loadPolicy(this.#o.storage.pool)) ?? DEFAULT_POLICY;
    } catch (error) {
      this.#log.warn({ err: error, change }, "reloading a change of another replica failed");
    }
  }

  #context(requestedBy: string): PredictionContext {
    return {
      state: this.#feed.state,
      served: this.#model.served,
      policy: this.#policy,
      mode: this.mode(),
      now: this.#now(),
      engine: this.#o.engine ?? "onnx",
      rounding: this.#o.rounding,
      requestedBy,
    };
  }

  async #whenReady(): Promise<void> {
    // A failed start is the host's to handle; predictions then go on with what is loaded.
    await this.#ready?.catch(() => {});
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }
}
