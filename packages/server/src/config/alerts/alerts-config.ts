import type { ConfigReader } from "../config-reader.js";
import { type AlertActionsConfig, readAlertActions } from "./alert-actions-config.js";
import { type AlertChannelsConfig, readAlertChannels } from "./alert-channels-config.js";

/**
 * The live alerts (`alerts`): whether they run, the rules' thresholds and the webhook channel.
 * Each field is the setting of the same path (see `options-alerts.ts` for the meanings).
 */
export type AlertsConfig = {
  /** Evaluate the live rules in this server. @default true */
  enabled: boolean;
  /** Seconds between two evaluations. @default 60 */
  intervalSeconds: number;
  gpusIdle: {
    /** A GPU below this utilisation (%) is idle. @default 5 */
    utilizationPercent: number;
    /** Every GPU idle this long fires. @default 30 */
    minutes: number;
  };
  memoryNearLimit: {
    /** Memory at or above this share of its limit (%)… @default 90 */
    percentOfLimit: number;
    /** …and reaching it within this many minutes fires. @default 15 */
    minutesToLimit: number;
    /** Minutes of samples the growth rate is fitted to. @default 10 */
    fitMinutes: number;
  };
  coresIdle: {
    /** CPU use below this share of the reserved cores (%)… @default 10 */
    percentOfCores: number;
    /** …for this many minutes fires. @default 30 */
    minutes: number;
  };
  walltimeOverrun: {
    /** Minutes of progress readings the rate is fitted to. @default 30 */
    fitMinutes: number;
    /** Minutes past the walltime the projected end must be to fire. @default 5 */
    marginMinutes: number;
  };
  repeatedOom: {
    /** Kills of the same shape… @default 3 */
    count: number;
    /** …within this many hours fire. @default 168 */
    windowHours: number;
  };
  /** A job whose last sample is older is no longer judged. @default 10 */
  maxSampleAgeMinutes: number;
  /** The chat webhooks told when an alert starts firing. */
  webhook: {
    /** Incoming-webhook URLs: credentials (a chat webhook's path is its secret). @default [] */
    urls: string[];
    /** Most messages per URL in any minute. @default 20 */
    maxPerMinute: number;
    /** Deadline of one POST. @default 5000 */
    timeoutMs: number;
  };
  /** Actions under policy (`alerts.actions`): off by default. */
  actions: AlertActionsConfig;
} & AlertChannelsConfig; // alerts.email, .alertmanager, .digest and .publicUrl

/**
 * Reads `alerts`.
 *
 * @example
 * ```ts
 * readAlerts(root.child("alerts")).gpusIdle.minutes; // 30
 * ```
 */
export function readAlerts(r: ConfigReader): AlertsConfig {
  const gpus = r.child("gpusIdle");
  const memory = r.child("memoryNearLimit");
  const cores = r.child("coresIdle");
  const webhook = r.child("webhook");
  const walltime = r.child("walltimeOverrun");
  const oom = r.child("repeatedOom");
  const config: AlertsConfig = {
    enabled: r.option("alerts.enabled"),
    intervalSeconds: r.option("alerts.intervalSeconds"),
    gpusIdle: {
      utilizationPercent: gpus.option("alerts.gpusIdle.utilizationPercent"),
      minutes: gpus.option("alerts.gpusIdle.minutes"),
    },
    memoryNearLimit: {
      percentOfLimit: memory.option("alerts.memoryNearLimit.percentOfLimit"),
      minutesToLimit: memory.option("alerts.memoryNearLimit.minutesToLimit"),
      fitMinutes: memory.option("alerts.memoryNearLimit.fitMinutes"),
    },
    coresIdle: {
      percentOfCores: cores.option("alerts.coresIdle.percentOfCores"),
      minutes: cores.option("alerts.coresIdle.minutes"),
    },
    walltimeOverrun: {
      fitMinutes: walltime.option("alerts.walltimeOverrun.fitMinutes"),
      marginMinutes: walltime.option("alerts.walltimeOverrun.marginMinutes"),
    },
    repeatedOom: {
      count: oom.option("alerts.repeatedOom.count"),
      windowHours: oom.option("alerts.repeatedOom.windowHours"),
    },
    maxSampleAgeMinutes: r.option("alerts.maxSampleAgeMinutes"),
    webhook: {
      urls: webhook.option("alerts.webhook.urls"),
      maxPerMinute: webhook.option("alerts.webhook.maxPerMinute"),
      timeoutMs: webhook.option("alerts.webhook.timeoutMs"),
    },
    actions: readAlertActions(r.child("actions")),
    ...readAlertChannels(r),
  };
  for (const reader of [gpus, memory, cores, webhook, walltime, oom, r]) reader.rejectUnknownKeys();
  // The URL is a credential: the message names its position, never its text.
  config.webhook.urls.forEach((url, i) => {
    if (!/^https?:\/\/[^\s]+$/.test(url)) webhook.issue(`urls[${i}]`, "must be an http(s) URL");
  });
  return config;
}
