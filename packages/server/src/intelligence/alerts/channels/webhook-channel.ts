import { createHash } from "node:crypto";
import type { AlertStore } from "../../../data-plane/stores/alert-store.js";
import type { ServiceLogger } from "../../service-options.js";
import { chatPayload } from "./chat-payload.js";
import { SendWindow } from "./send-window.js";

/** Where the channel reads what is still to be sent and records what was. */
export type AlertDeliveries = Pick<AlertStore, "undelivered" | "markDelivered">;

/** Options of {@link WebhookChannel}. */
export type WebhookChannelOptions = {
  /** The incoming-webhook URLs (Slack, Mattermost, or any endpoint taking the same JSON). Credentials: never logged. */
  urls: readonly string[];
  /** Most messages per URL in any minute; the others wait for a later delivery. @default 20 */
  maxPerMinute?: number;
  /** Deadline of one POST. @default 5000 */
  timeoutMs?: number;
  /** Wait after a URL failed before trying it again, doubled at each further failure up to 16 times. @default 30000 */
  retryDelayMs?: number;
  /** The view of the store the channel delivers from, e.g. the users' preferences (`withPreferences`). @default the store itself */
  view?: (store: AlertDeliveries) => AlertDeliveries;
  /** The `fetch` to POST with. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Where failures are reported. @default no-op */
  log?: ServiceLogger;
  /** The clock, in milliseconds. @default Date.now */
  now?: () => number;
};

/** What one {@link WebhookChannel.deliver} did. */
export type DeliveryReport = { sent: number; failed: number; deferred: number };

type Target = {
  url: string;
  /** sha256 of the URL: what the alerts table records, so the URL itself is never stored. */
  id: string;
  /** What logs name: the host only (the path of a chat webhook is its secret). */
  label: string;
  window: SendWindow;
  failures: number;
  retryAt: number;
};

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Tells chat channels when an alert starts firing: one POST of a Slack/Mattermost-compatible
 * message per URL per firing episode (not per evaluation), at most `maxPerMinute` per URL. What
 * was delivered is recorded on the alert, so a failed or deferred message is sent on a later
 * delivery, also after a restart or by another replica; a failing URL is retried with back-off.
 * Never throws: failures are logged and counted.
 *
 * @example
 * ```ts
 * const channel = new WebhookChannel({ urls: ["https://hooks.slack.com/services/T/B/X"] });
 * await channel.deliver(storage.alerts); // { sent: 1, failed: 0, deferred: 0 }
 * ```
 */
export class WebhookChannel {
  readonly #targets: Target[];
  readonly #o: Required<Omit<WebhookChannelOptions, "urls" | "view">>;
  readonly #view: ((store: AlertDeliveries) => AlertDeliveries) | undefined;

  constructor(options: WebhookChannelOptions) {
    this.#o = {
      maxPerMinute: options.maxPerMinute ?? 20,
      timeoutMs: options.timeoutMs ?? 5000,
      retryDelayMs: options.retryDelayMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      log: options.log ?? silent,
      now: options.now ?? Date.now,
    };
    this.#view = options.view;
    this.#targets = [...new Set(options.urls)].map((url) => ({
      url,
      id: createHash("sha256").update(url).digest("hex"),
      label: hostOf(url),
      window: new SendWindow(this.#o.maxPerMinute),
      failures: 0,
      retryAt: 0,
    }));
  }

  /** Sends every firing alert not yet delivered to each URL, within the URLs' budgets. Never rejects. */
  async deliver(deliveries: AlertDeliveries): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, deferred: 0 };
    if (this.#targets.length === 0) return report;
    const store = this.#view ? this.#view(deliveries) : deliveries;
    let pending: Awaited<ReturnType<AlertDeliveries["undelivered"]>>;
    try {
      pending = await store.undelivered(this.#targets.map((t) => t.id));
    } catch (error) {
      this.#o.log.warn({ err: error }, "alert webhooks: could not read the alerts to send");
      return report;
    }
    for (const target of this.#targets) {
      for (const alert of pending) {
        if (alert.deliveredTo.includes(target.id)) continue;
        const now = this.#o.now();
        if (now < target.retryAt || !target.window.take(now)) {
          report.deferred++;
          continue;
        }
        const { deliveredTo: _, firedAt, ...wire } = alert;
        if (await this.#post(target, chatPayload(wire))) {
          report.sent++;
          try {
            await store.markDelivered(alert.id, firedAt, target.id);
          } catch (error) {
            this.#o.log.warn(
              { err: error, channel: target.label },
              "alert webhooks: could not record a delivery",
            );
          }
        } else {
          report.failed++;
        }
      }
    }
    return report;
  }

  async #post(target: Target, payload: unknown): Promise<boolean> {
    try {
      const response = await this.#o.fetch(target.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
      // The body is not needed; reading it frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) {
        target.failures = 0;
        target.retryAt = 0;
        return true;
      }
      this.#failed(target, `HTTP ${response.status}`);
    } catch (error) {
      this.#failed(target, error instanceof Error ? error.message : String(error));
    }
    return false;
  }

  #failed(target: Target, reason: string): void {
    target.failures++;
    const delay = this.#o.retryDelayMs * 2 ** Math.min(target.failures - 1, 16);
    target.retryAt = this.#o.now() + delay;
    this.#o.log.warn(
      { channel: target.label, reason, failures: target.failures, retryInMs: delay },
      "alert webhook failed; the alert is sent again later",
    );
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
