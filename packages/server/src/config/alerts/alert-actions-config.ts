import type { ConfigReader } from "../config-reader.js";

/**
 * Actions under policy (`alerts.actions`); each field is the setting of the same path (see
 * `options-alert-actions.ts` for the meanings).
 */
export type AlertActionsConfig = {
  /** @default false */
  enabled: boolean;
  /** @default true */
  dryRun: boolean;
  /** @default 30 */
  graceMinutes: number;
  /** @default false */
  holdRepeatOffenders: boolean;
  /** @default [] (every cluster) */
  clusters: string[];
  /** @default [] (every user) */
  users: string[];
  /** @default [] (every account) */
  accounts: string[];
  /** @default [] (every partition) */
  partitions: string[];
  /** The command before `--verbose <job id>`, split on spaces (no shell). @default "scancel" */
  scancelCommand: string;
  /** @default 10000 */
  commandTimeoutMs: number;
  kubernetes: {
    /** @default undefined (Kubernetes jobs are not acted on) */
    apiUrl?: string;
    /** @default "/var/run/secrets/kubernetes.io/serviceaccount/token" */
    tokenFile: string;
    /** @default "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt" */
    caFile: string;
  };
};

/**
 * Reads `alerts.actions`.
 *
 * @example
 * ```ts
 * readAlertActions(root.child("alerts").child("actions")).dryRun; // true
 * ```
 */
export function readAlertActions(r: ConfigReader): AlertActionsConfig {
  const k8s = r.child("kubernetes");
  const apiUrl = k8s.option("alerts.actions.kubernetes.apiUrl");
  const config: AlertActionsConfig = {
    enabled: r.option("alerts.actions.enabled"),
    dryRun: r.option("alerts.actions.dryRun"),
    graceMinutes: r.option("alerts.actions.graceMinutes"),
    holdRepeatOffenders: r.option("alerts.actions.holdRepeatOffenders"),
    clusters: r.option("alerts.actions.clusters"),
    users: r.option("alerts.actions.users"),
    accounts: r.option("alerts.actions.accounts"),
    partitions: r.option("alerts.actions.partitions"),
    scancelCommand: r.option("alerts.actions.scancelCommand"),
    commandTimeoutMs: r.option("alerts.actions.commandTimeoutMs"),
    kubernetes: {
      ...(apiUrl !== undefined ? { apiUrl } : {}),
      tokenFile: k8s.option("alerts.actions.kubernetes.tokenFile"),
      caFile: k8s.option("alerts.actions.kubernetes.caFile"),
    },
  };
  for (const reader of [k8s, r]) reader.rejectUnknownKeys();
  if (apiUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(apiUrl))
    k8s.issue("apiUrl", "must be an http(s) URL");
  return config;
}
