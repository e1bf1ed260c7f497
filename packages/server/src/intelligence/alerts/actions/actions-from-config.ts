import type { AlertActionsConfig } from "../../../config/alerts/alert-actions-config.js";
import type { AlertsConfig } from "../../../config/alerts/alerts-config.js";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import type { ServiceLogger } from "../../service-options.js";
import { AlertActions } from "./alert-actions.js";
import { KubernetesPodDeleter } from "./kubernetes-pod-deleter.js";
import { ScancelCanceller } from "./scancel-canceller.js";
import { type HoldJudge, SubmissionHold } from "./submission-hold.js";

/**
 * The actions under policy `alerts.actions` asks for; `undefined` when they are off (the
 * default). SLURM jobs are cancelled with the configured scancel command; Kubernetes jobs only
 * when an API server is configured.
 *
 * @example
 * ```ts
 * const actions = alertActionsFromConfig(config.alerts.actions, 10, storage, log);
 * ```
 */
export function alertActionsFromConfig(
  config: AlertActionsConfig,
  maxSampleAgeMinutes: number,
  storage: Pick<DataPlaneStorage, "pool" | "alertActions">,
  log: ServiceLogger,
): AlertActions | undefined {
  if (!config.enabled) return undefined;
  const { apiUrl, tokenFile, caFile } = config.kubernetes;
  return new AlertActions({
    storage,
    log,
    dryRun: config.dryRun,
    graceMinutes: config.graceMinutes,
    maxSampleAgeMinutes,
    scope: {
      clusters: config.clusters,
      users: config.users,
      accounts: config.accounts,
      partitions: config.partitions,
    },
    cancellers: {
      slurm: new ScancelCanceller({
        command: config.scancelCommand.trim().split(/\s+/),
        timeoutMs: config.commandTimeoutMs,
      }),
      ...(apiUrl
        ? {
            kubernetes: new KubernetesPodDeleter({
              apiUrl,
              tokenFile,
              caFile,
              timeoutMs: config.commandTimeoutMs,
            }),
          }
        : {}),
    },
  });
}

/**
 * The hold of repeat offenders' submissions `alerts.actions` asks for (`enabled` and
 * `holdRepeatOffenders`), as the SLURM advice and the Kubernetes admission webhook call it;
 * `undefined` when off.
 *
 * @example
 * ```ts
 * const holdSubmission = submissionHoldFromConfig(config.alerts, storage);
 * ```
 */
export function submissionHoldFromConfig(
  config: AlertsConfig | undefined,
  storage: Pick<DataPlaneStorage, "pool" | "alertActions" | "oomKilledJobs">,
): HoldJudge | undefined {
  const actions = config?.actions;
  if (!config || !actions?.enabled || !actions.holdRepeatOffenders) return undefined;
  const hold = new SubmissionHold({
    storage,
    dryRun: actions.dryRun,
    count: config.repeatedOom.count,
    windowHours: config.repeatedOom.windowHours,
    scope: {
      clusters: actions.clusters,
      users: actions.users,
      accounts: actions.accounts,
      partitions: actions.partitions,
    },
  });
  return (spec, cluster, via) => hold.judge(spec, cluster, via);
}
