import type { AlertsConfig } from "../../../config/alerts/alerts-config.js";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import { defaultAlertPreferences } from "../../../data-plane/stores/alert-preference-store.js";
import type { ServiceLogger } from "../../service-options.js";
import type { AlertChannel } from "./alert-channel.js";
import { AlertmanagerChannel } from "./alertmanager-channel.js";
import { EmailChannel } from "./email-channel.js";
import { EmailRecipients } from "./email-recipients.js";
import { withPreferences } from "./preference-filter.js";
import { type Mailer, smtpMailer } from "./smtp-transport.js";
import type { AlertDeliveries } from "./webhook-channel.js";

type Storage = Pick<DataPlaneStorage, "alertPreferences">;

/** The mailer and recipients `alerts.email` configures; `undefined` without an SMTP host. */
export function mailFromConfig(
  config: AlertsConfig | undefined,
): { mailer: Mailer; recipients: EmailRecipients } | undefined {
  const email = config?.email;
  if (!email) return undefined;
  return {
    mailer: smtpMailer({ ...email.smtp, from: email.from }),
    recipients: new EmailRecipients({
      domain: email.domain,
      // `user=address`, checked by the configuration's reader.
      addresses: Object.fromEntries(
        email.addresses.map((entry) => {
          const at = entry.indexOf("=");
          return [entry.slice(0, at).trim(), entry.slice(at + 1).trim()];
        }),
      ),
    }),
  };
}

/**
 * The view through which a channel of the users' (`email`, `webhook`) sees the alerts: each
 * user's opt-out, channel choice and quiet hours applied (see `withPreferences`).
 *
 * @example
 * ```ts
 * new WebhookChannel({ urls, view: preferenceView("webhook", storage, log) });
 * ```
 */
export function preferenceView(
  channel: "email" | "webhook",
  storage: Storage,
  log: ServiceLogger,
): (store: AlertDeliveries) => AlertDeliveries {
  return (store) =>
    withPreferences(store, {
      channel,
      preferences: storage.alertPreferences,
      defaults: defaultAlertPreferences,
      log,
    });
}

/**
 * The channels beside the webhooks that `alerts` configures: e-mail to each job's user (through
 * their preferences) and Alertmanager. Empty when neither is configured.
 *
 * @example
 * ```ts
 * new AlertMonitor({ storage, channels: alertChannelsFromConfig(config.alerts, storage, log) });
 * ```
 */
export function alertChannelsFromConfig(
  config: AlertsConfig | undefined,
  storage: Storage,
  log: ServiceLogger,
): AlertChannel[] {
  const channels: AlertChannel[] = [];
  const mail = mailFromConfig(config);
  const email = config?.email;
  if (mail && email)
    channels.push(
      new EmailChannel({
        ...mail,
        publicUrl: config.publicUrl,
        maxPerMinute: email.maxPerMinute,
        maxPerUserPerHour: email.maxPerUserPerHour,
        view: preferenceView("email", storage, log),
        log,
      }),
    );
  const alertmanager = config?.alertmanager;
  if (config && alertmanager && alertmanager.urls.length > 0)
    channels.push(
      new AlertmanagerChannel({
        urls: alertmanager.urls,
        timeoutMs: alertmanager.timeoutMs,
        // As Prometheus: valid for four evaluations, so one missed send does not resolve it.
        validForMs: 4 * config.intervalSeconds * 1000,
        publicUrl: config.publicUrl,
        log,
      }),
    );
  return channels;
}
