import type { AlertAction, Policy } from "@jobsight/schemas";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import type { DueAlert } from "../../../data-plane/stores/alerts/alert-action-store.js";
import { actionKey } from "../../../data-plane/stores/alerts/alert-action-store.js";
import { DEFAULT_POLICY, loadPolicy } from "../../../data-plane/stores/policy-store.js";
import type { ServiceLogger } from "../../service-options.js";
import { type ActionScope, refusal } from "./action-scope.js";
import type { JobCanceller } from "./job-canceller.js";

const MINUTE_MS = 60_000;

/** Options of {@link AlertActions}. */
export type AlertActionsOptions = {
  storage: Pick<DataPlaneStorage, "pool" | "alertActions">;
  /** Only log what would be done. @default true */
  dryRun?: boolean;
  /** Minutes between the gpus-idle warning and the cancellation. @default 30 */
  graceMinutes?: number;
  /** Who may be acted on. @default everyone (the platform policy's exclusions still apply) */
  scope?: Partial<ActionScope>;
  /** How jobs of each scheduler are cancelled; a scheduler without one is not acted on. */
  cancellers: Partial<Record<"slurm" | "kubernetes", JobCanceller>>;
  /** The platform policy (its optOutUsers and namespaces). @default the stored policy, read each run */
  policy?: () => Promise<Policy>;
  /** An alert not seen holding for this long is not acted on (it may have stopped). @default 10 */
  maxSampleAgeMinutes?: number;
  /** @default no-op */
  log?: ServiceLogger;
};

/** What one run did. */
export type ActionReport = {
  /** Alerts past their grace period not yet acted on. */
  due: number;
  /** Left alone: outside the policy, or no canceller for their scheduler. */
  refused: number;
  dryRun: number;
  done: number;
  failed: number;
};

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Actions under policy on live alerts: a job whose `gpus-idle` alert has kept firing for the
 * grace period after it started (the warning) is cancelled through its scheduler's canceller, if
 * the policy allows acting on it; in dry-run only the decision is logged. Every decision acted on
 * (dry-run, done or failed) goes to the audit log with the alert's evidence, once per alert
 * episode. Jobs left alone by the policy are counted, not logged.
 *
 * @example
 * ```ts
 * const actions = new AlertActions({ storage, dryRun: false, cancellers: { slurm: new ScancelCanceller() } });
 * await actions.run(new Date()); // { due: 1, done: 1, … }
 * ```
 */
export class AlertActions {
  readonly dryRun: boolean;
  readonly #o: AlertActionsOptions;
  readonly #log: ServiceLogger;

  constructor(options: AlertActionsOptions) {
    this.#o = options;
    this.dryRun = options.dryRun ?? true;
    this.#log = options.log ?? silent;
  }

  /**
   * Acts on the alerts due at `now`.
   *
   * @throws what the storage throws; the alert loop catches and logs it.
   */
  async run(now: Date): Promise<ActionReport> {
    const { storage } = this.#o;
    const grace = (this.#o.graceMinutes ?? 30) * MINUTE_MS;
    const seenSince = new Date(+now - (this.#o.maxSampleAgeMinutes ?? 10) * MINUTE_MS);
    const due = await storage.alertActions.dueAlerts("gpus-idle", new Date(+now - grace), seenSince);
    const keyOf = (a: DueAlert) => ({
      cluster: a.cluster,
      jobId: a.jobId,
      kind: "cancel-job" as const,
      episode: a.firedAt,
    });
    const acted = await storage.alertActions.actedOn(due.map(keyOf));
    const report: ActionReport = { due: 0, refused: 0, dryRun: 0, done: 0, failed: 0 };
    const open = due.filter((a) => !acted.has(actionKey(keyOf(a))));
    report.due = open.length;
    if (open.length === 0) return report;
    const policy = this.#o.policy
      ? await this.#o.policy()
      : ((await loadPolicy(storage.pool)) ?? DEFAULT_POLICY);
    const scope: ActionScope = { clusters: [], users: [], accounts: [], partitions: [], ...this.#o.scope };
    for (const alert of open) {
      const canceller = this.#o.cancellers[alert.scheduler === "kubernetes" ? "kubernetes" : "slurm"];
      const why =
        refusal(alert, scope, policy) ??
        (alert.scheduler === undefined ? "no job record says which scheduler runs it" : undefined) ??
        (canceller ? undefined : `no canceller configured for ${alert.scheduler} jobs`);
      if (why !== undefined || !canceller) {
        report.refused++;
        this.#log.info(
          { cluster: alert.cluster, jobId: alert.jobId, reason: why },
          "alert action: left alone",
        );
        continue;
      }
      const outcome = this.dryRun ? undefined : await canceller.cancel(alert.jobId);
      const idleFor = Math.round((+now - +alert.firedAt) / MINUTE_MS);
      const action: Omit<AlertAction, "id" | "at"> = {
        cluster: alert.cluster,
        jobId: alert.jobId,
        user: alert.user,
        kind: "cancel-job",
        rule: alert.rule,
        alertId: alert.alertId,
        outcome: outcome === undefined ? "dry-run" : outcome.ok ? "done" : "failed",
        executor: canceller.executor,
        warnedAt: alert.firedAt.toISOString(),
        message:
          outcome === undefined
            ? `Would cancel job ${alert.jobId}: its GPUs stayed idle ${idleFor} min after the warning (dry run). ${alert.message}`
            : outcome.ok
              ? `Cancelled job ${alert.jobId}: its GPUs stayed idle ${idleFor} min after the warning. ${alert.message}`
              : `Cancelling job ${alert.jobId} failed: its GPUs stayed idle ${idleFor} min after the warning. ${alert.message}`,
        evidence: alert.evidence,
        ...(outcome ? { detail: outcome.detail } : {}),
      };
      await storage.alertActions.record({
        ...action,
        message: action.message.slice(0, 2048),
        at: now,
        episode: alert.firedAt,
      });
      report[action.outcome === "dry-run" ? "dryRun" : action.outcome]++;
      const level = action.outcome === "failed" ? "warn" : "info";
      this.#log[level](
        { cluster: alert.cluster, jobId: alert.jobId, outcome: action.outcome, detail: action.detail },
        "alert action: cancel-job",
      );
    }
    return report;
  }
}
