import type { ServiceLogger } from "../../service-options.js";
import type { AlertChannel } from "./alert-channel.js";
import { alertMail } from "./alert-mail.js";
import type { EmailRecipients } from "./email-recipients.js";
import { SendWindow } from "./send-window.js";
import type { Mailer } from "./smtp-transport.js";
import type { AlertDeliveries, DeliveryReport } from "./webhook-channel.js";

/** What the alerts table records for a mail sent (one id for every address: the user's mail). */
export const EMAIL_CHANNEL_ID = "email";

const HOUR_MS = 3_600_000;

/** Options of {@link EmailChannel}. */
export type EmailChannelOptions = {
  /** Sends the mails (see `smtpMailer`). */
  mailer: Mailer;
  /** The address of each job's user. */
  recipients: EmailRecipients;
  /** The server's URL as users open it, for links to the job's page. @default undefined (no links) */
  publicUrl?: string;
  /** Most mails in any minute, all users together. @default 30 */
  maxPerMinute?: number;
  /** Most alert mails one user gets in any hour; the others wait (and are dropped if they resolve first). @default 6 */
  maxPerUserPerHour?: number;
  /** Wait after a failed send before trying again, doubled at each further failure up to 16 times. @default 30000 */
  retryDelayMs?: number;
  /** The view of the store the channel delivers from, e.g. the users' preferences (`withPreferences`). @default the store itself */
  view?: (store: AlertDeliveries) => AlertDeliveries;
  /** @default no-op */
  log?: ServiceLogger;
  /** The clock, in milliseconds. @default Date.now */
  now?: () => number;
};

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Mails the user of a job when an alert about it starts firing: one mail per firing episode,
 * recorded on the alert so a restart or another replica does not send it twice. Sends at most
 * `maxPerMinute` mails overall and `maxPerUserPerHour` per user; the rest wait for a later delivery
 * while they still fire. An alert whose user has no address is recorded as delivered (nobody to
 * tell). A failing SMTP server is retried with back-off. Never throws.
 *
 * @example
 * ```ts
 * const channel = new EmailChannel({ mailer: smtpMailer(smtp), recipients: new EmailRecipients({ domain: "lab.example.org" }) });
 * await channel.deliver(storage.alerts); // { sent: 1, failed: 0, deferred: 0 }
 * ```
 */
export class EmailChannel implements AlertChannel {
  readonly name = "email";
  readonly #o: Required<Omit<EmailChannelOptions, "publicUrl" | "view">> &
    Pick<EmailChannelOptions, "publicUrl" | "view">;
  readonly #window: SendWindow;
  readonly #perUser = new Map<string, SendWindow>();
  readonly #unaddressed = new Set<string>();
  #failures = 0;
  #retryAt = 0;

  constructor(options: EmailChannelOptions) {
    this.#o = {
      ...options,
      maxPerMinute: options.maxPerMinute ?? 30,
      maxPerUserPerHour: options.maxPerUserPerHour ?? 6,
      retryDelayMs: options.retryDelayMs ?? 30_000,
      log: options.log ?? silent,
      now: options.now ?? Date.now,
    };
    this.#window = new SendWindow(this.#o.maxPerMinute);
  }

  /** Mails every firing alert not yet mailed, within the budgets. Never rejects. */
  async deliver(deliveries: AlertDeliveries): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, deferred: 0 };
    const store = this.#o.view ? this.#o.view(deliveries) : deliveries;
    let pending: Awaited<ReturnType<AlertDeliveries["undelivered"]>>;
    try {
      pending = await store.undelivered([EMAIL_CHANNEL_ID]);
    } catch (error) {
      this.#o.log.warn({ err: error }, "alert mail: could not read the alerts to send");
      return report;
    }
    for (const alert of pending) {
      const { deliveredTo: _, firedAt, ...wire } = alert;
      const to = this.#o.recipients.addressOf(alert.user);
      if (!to) {
        if (!this.#unaddressed.has(alert.user)) {
          this.#unaddressed.add(alert.user);
          this.#o.log.warn(
            { user: alert.user },
            "alert mail: no address for the user; their alerts are not mailed",
          );
        }
        await this.#mark(store, alert.id, firedAt);
        continue;
      }
      const now = this.#o.now();
      const userWindow = this.#userWindow(alert.user);
      if (now < this.#retryAt || !userWindow.room(now) || !this.#window.take(now)) {
        report.deferred++;
        continue;
      }
      userWindow.take(now);
      try {
        await this.#o.mailer.send(alertMail(wire, to, this.#o.publicUrl));
        this.#failures = 0;
        this.#retryAt = 0;
        report.sent++;
        await this.#mark(store, alert.id, firedAt);
      } catch (error) {
        report.failed++;
        this.#failures++;
        const delay = this.#o.retryDelayMs * 2 ** Math.min(this.#failures - 1, 16);
        this.#retryAt = this.#o.now() + delay;
        this.#o.log.warn(
          {
            reason: error instanceof Error ? error.message : String(error),
            failures: this.#failures,
            retryInMs: delay,
          },
          "alert mail failed; the alert is sent again later",
        );
      }
    }
    return report;
  }

  #userWindow(user: string): SendWindow {
    let window = this.#perUser.get(user);
    if (!window) {
      window = new SendWindow(this.#o.maxPerUserPerHour, HOUR_MS);
      this.#perUser.set(user, window);
    }
    return window;
  }

  async #mark(store: AlertDeliveries, id: string, firedAt: string): Promise<void> {
    try {
      await store.markDelivered(id, firedAt, EMAIL_CHANNEL_ID);
    } catch (error) {
      this.#o.log.warn({ err: error }, "alert mail: could not record a delivery");
    }
  }
}
