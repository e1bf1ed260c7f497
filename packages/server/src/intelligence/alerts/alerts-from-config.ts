import type { AlertsConfig } from "../../config/alerts/alerts-config.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import type { ServiceLogger } from "../service-options.js";
import { alertActionsFromConfig } from "./actions/actions-from-config.js";
import { AlertMonitor } from "./alert-monitor.js";
import type { AlertThresholds } from "./alert-thresholds.js";
import { alertChannelsFromConfig, preferenceView } from "./channels/channels-from-config.js";
import { WebhookChannel } from "./channels/webhook-channel.js";

/**
 * The live alert monitor the configuration asks for (`alerts`), not started; `undefined` when
 * alerts are off. Without an `alerts` section, the defaults apply.
 *
 * @example
 * ```ts
 * const monitor = alertMonitorFromConfig(config.alerts, app.storage, log);
 * monitor?.start();
 * ```
 */
export function alertMonitorFromConfig(
  config: AlertsConfig | undefined,
  storage: Pick<
    DataPlaneStorage,
    "pool" | "alerts" | "liveJobs" | "oomKilledJobs" | "alertActions" | "alertPreferences"
  >,
  log: ServiceLogger,
): AlertMonitor | undefined {
  if (config && !config.enabled) return undefined;
  const urls = config?.webhook.urls ?? [];
  const actions = config
    ? alertActionsFromConfig(config.actions, config.maxSampleAgeMinutes, storage, log)
    : undefined;
  return new AlertMonitor({
    storage,
    log,
    ...(config ? { thresholds: alertThresholds(config), intervalMs: config.intervalSeconds * 1000 } : {}),
    ...(actions ? { actions } : {}),
    channels: alertChannelsFromConfig(config, storage, log),
    ...(urls.length > 0
      ? {
          webhook: new WebhookChannel({
            urls,
            maxPerMinute: config?.webhook.maxPerMinute,
            timeoutMs: config?.webhook.timeoutMs,
            view: preferenceView("webhook", storage, log),
            log,
          }),
        }
      : {}),
  });
}

/** The rules' thresholds set in `alerts`. */
export function alertThresholds(config: AlertsConfig): AlertThresholds {
  return {
    gpuIdlePercent: config.gpusIdle.utilizationPercent,
    gpuIdleMinutes: config.gpusIdle.minutes,
    memoryPercentOfLimit: config.memoryNearLimit.percentOfLimit,
    memoryMinutesToLimit: config.memoryNearLimit.minutesToLimit,
    memoryFitMinutes: config.memoryNearLimit.fitMinutes,
    coresIdlePercent: config.coresIdle.percentOfCores,
    coresIdleMinutes: config.coresIdle.minutes,
    walltimeFitMinutes: config.walltimeOverrun.fitMinutes,
    walltimeMarginMinutes: config.walltimeOverrun.marginMinutes,
    repeatedOomCount: config.repeatedOom.count,
    repeatedOomWindowHours: config.repeatedOom.windowHours,
    maxSampleAgeMinutes: config.maxSampleAgeMinutes,
  };
}
