import type { CostRates } from "@jobsight/schemas";
import type { AlertsConfig } from "../../../config/alerts/alerts-config.js";
import type { ServiceLogger } from "../../service-options.js";
import { mailFromConfig } from "../channels/channels-from-config.js";
import { DigestSender, type DigestSenderOptions } from "./digest-sender.js";

/**
 * The weekly digest the configuration asks for, not started; `undefined` when alerts or the
 * digest are off, or no e-mail is configured.
 *
 * @example
 * ```ts
 * const digests = digestSenderFromConfig(config.alerts, app.storage, log, config.cost);
 * digests?.start();
 * ```
 */
export function digestSenderFromConfig(
  config: AlertsConfig | undefined,
  storage: DigestSenderOptions["storage"],
  log: ServiceLogger,
  rates?: CostRates,
): DigestSender | undefined {
  if (!config?.enabled || !config.digest.enabled) return undefined;
  const mail = mailFromConfig(config);
  if (!mail) return undefined;
  return new DigestSender({
    storage,
    ...mail,
    publicUrl: config.publicUrl,
    hourUtc: config.digest.hourUtc,
    maxJobs: config.digest.maxJobs,
    ...(rates ? { rates } : {}),
    maxPerMinute: config.email?.maxPerMinute,
    log,
  });
}
