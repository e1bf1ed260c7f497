import { withTryAdvisoryLock } from "../../data-plane/storage/advisory-lock.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { BackgroundLoop } from "../background-loop.js";
import type { ServiceLogger } from "../service-options.js";
import type { ActionReport, AlertActions } from "./actions/alert-actions.js";
import { type AlertThresholds, DEFAULT_ALERT_THRESHOLDS, lookbackMinutes } from "./alert-thresholds.js";
import type { AlertChannel } from "./channels/alert-channel.js";
import type { DeliveryReport, WebhookChannel } from "./channels/webhook-channel.js";
import { alertKey, evaluateJobs } from "./evaluate-jobs.js";

/** One server at a time evaluates the live rules (the others skip the tick). */
export const ALERTS_LOCK = 0x616c7274; // "alrt"

const MINUTE_MS = 60_000;

/** Options of {@link AlertMonitor}. */
export type AlertMonitorOptions = {
  /** Where samples are read and alerts kept. */
  storage: Pick<DataPlaneStorage, "pool" | "alerts" | "liveJobs" | "oomKilledJobs">;
  /** The rules' thresholds; fields left out keep their defaults. @default DEFAULT_ALERT_THRESHOLDS */
  thresholds?: Partial<AlertThresholds>;
  /** Milliseconds between two evaluations. @default 60000 */
  intervalMs?: number;
  /** Where alerts that start firing are sent. @default undefined (none: the API only) */
  webhook?: WebhookChannel;
  /** The other channels (e-mail, Alertmanager), delivered to after each evaluation. @default [] */
  channels?: readonly AlertChannel[];
  /** Actions under policy, run after each evaluation. @default undefined (none: alerts only) */
  actions?: AlertActions;
  /** Most jobs judged per evaluation, most recently reporting first. @default 2000 */
  maxJobs?: number;
  /** Most samples read per evaluation. @default 250000 */
  maxSamples?: number;
  /** @default no-op */
  log?: ServiceLogger;
  /** The clock. @default () => new Date() */
  now?: () => Date;
};

/** What one evaluation did. */
export type AlertEvaluationReport = {
  /** False when another server held the lock and this one skipped the evaluation. */
  evaluated: boolean;
  jobs: number;
  firing: number;
  created: number;
  resolved: number;
  unowned: number;
  truncated: boolean;
  delivery?: DeliveryReport;
  /** What each of `channels` did, by its name. */
  deliveries?: Record<string, DeliveryReport>;
  actions?: ActionReport;
};

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Evaluates the live rules over the recent samples of running jobs, on a schedule: a rule that
 * holds fires (or keeps firing) its job's alert, one judged not to hold resolves it, and an alert
 * of a job that ended or stopped reporting resolves; then new alerts go to the webhook channel.
 * Runs in the background without ever throwing into the server (see `BackgroundLoop`).
 *
 * @example
 * ```ts
 * const monitor = new AlertMonitor({ storage, thresholds: { gpuIdleMinutes: 20 }, webhook });
 * monitor.start();
 * await monitor.stop();
 * ```
 */
export class AlertMonitor {
  readonly thresholds: AlertThresholds;
  readonly #o: AlertMonitorOptions;
  readonly #log: ServiceLogger;
  readonly #loop: BackgroundLoop;

  constructor(options: AlertMonitorOptions) {
    this.#o = options;
    this.#log = options.log ?? silent;
    this.thresholds = { ...DEFAULT_ALERT_THRESHOLDS, ...options.thresholds };
    this.#loop = new BackgroundLoop({
      intervalMs: options.intervalMs ?? 60_000,
      run: async () => void (await this.evaluate()),
      onError: (error, failures) => this.#log.error({ err: error, failures }, "live alert evaluation failed"),
    });
  }

  /** Starts evaluating every interval (the first after one interval). */
  start(): void {
    this.#loop.start();
  }

  /** Stops the schedule and waits for an evaluation in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Runs an evaluation now unless one is running; never rejects (failures are logged). */
  runNow(): Promise<void> {
    return this.#loop.runNow();
  }

  /**
   * One evaluation, under the alerts lock (another server evaluating makes it skip); the report's
   * `evaluated` is false then.
   *
   * @throws what the storage throws; the schedule catches and logs it.
   */
  async evaluate(): Promise<AlertEvaluationReport> {
    const { pool } = this.#o.storage;
    // The lock holds one connection while the evaluation queries on others: with a pool of one
    // that would wait forever (and stall every request), so such a server evaluates unlocked.
    if ((pool.options?.max ?? 10) < 2) return this.#evaluate();
    const result = await withTryAdvisoryLock(pool, ALERTS_LOCK, () => this.#evaluate());
    if (!result.locked)
      return { evaluated: false, jobs: 0, firing: 0, created: 0, resolved: 0, unowned: 0, truncated: false };
    return result.value;
  }

  async #evaluate(): Promise<AlertEvaluationReport> {
    const { storage } = this.#o;
    const t = this.thresholds;
    const now = (this.#o.now ?? (() => new Date()))();
    const ageMs = t.maxSampleAgeMinutes * MINUTE_MS;
    const { jobs, truncated } = await storage.liveJobs({
      since: new Date(+now - lookbackMinutes(t) * MINUTE_MS - ageMs),
      until: now,
      reportingSince: new Date(+now - ageMs),
      maxJobs: this.#o.maxJobs,
      maxSamples: this.#o.maxSamples,
    });
    if (truncated)
      this.#log.warn({ jobs: jobs.length }, "live alerts: more running jobs than one evaluation reads");
    // repeated-oom judges each job by its owner's recent jobs killed for memory.
    const users = new Set<string>();
    for (const j of jobs) {
      const user = j.user ?? j.samples.find((s) => s.user !== undefined)?.user;
      if (user !== undefined) users.add(user);
    }
    const oomKills = await storage.oomKilledJobs({
      since: new Date(+now - t.repeatedOomWindowHours * 3_600_000),
      users: [...users],
    });
    const evaluation = evaluateJobs(jobs, t, undefined, oomKills);
    const created = await storage.alerts.fire(evaluation.firing, now);
    const fired = new Set(evaluation.firing.map((a) => alertKey(a.cluster, a.jobId, a.rule)));
    // Resolve what was judged not to hold, and the alerts of jobs no longer running; when the read
    // was cut short, only those not seen for a whole look-back (the others may just be unread).
    const staleBefore = +now - (lookbackMinutes(t) * MINUTE_MS + ageMs);
    const toResolve = (await storage.alerts.firing())
      .filter((a) => {
        const key = alertKey(a.cluster, a.jobId, a.rule);
        if (fired.has(key)) return false;
        if (evaluation.cleared.has(key)) return true;
        if (evaluation.judgedJobs.has(`${a.cluster}\u0000${a.jobId}`)) return false;
        return !truncated || +a.lastSeen < staleBefore;
      })
      .map((a) => a.id);
    const resolved = await storage.alerts.resolve(toResolve, now);
    const report: AlertEvaluationReport = {
      evaluated: true,
      jobs: jobs.length,
      firing: evaluation.firing.length,
      created,
      resolved,
      unowned: evaluation.unowned,
      truncated,
    };
    if (this.#o.webhook) report.delivery = await this.#o.webhook.deliver(storage.alerts);
    if (this.#o.channels?.length) {
      report.deliveries = {};
      for (const channel of this.#o.channels)
        report.deliveries[channel.name] = await channel.deliver(storage.alerts);
    }
    if (this.#o.actions) report.actions = await this.#o.actions.run(now);
    return report;
  }
}
