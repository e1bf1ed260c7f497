import type { Alert } from "@jobsight/schemas";
import type { ServiceLogger } from "../../service-options.js";
import type { AlertChannel, AlertChannelStore } from "./alert-channel.js";
import { postableAlert } from "./alertmanager-payload.js";
import type { DeliveryReport } from "./webhook-channel.js";

/** Options of {@link AlertmanagerChannel}. */
export type AlertmanagerChannelOptions = {
  /** Base URLs of the Alertmanagers (every member of an HA cluster), e.g. `http://alertmanager:9093`; `user:password@` becomes basic auth. Credentials: never logged. */
  urls: readonly string[];
  /**
   * How long a firing alert is valid without being sent again (its `endsAt`); keep it a few
   * times the evaluation interval, as Prometheus does (4×), so a missed send does not resolve it.
   * @default 240000
   */
  validForMs?: number;
  /** The server's URL as users open it, for the `evidence` link. @default undefined (the API query) */
  publicUrl?: string;
  /** Most firing alerts sent per delivery, most recently seen first. @default 1000 */
  maxAlerts?: number;
  /** Deadline of one POST. @default 5000 */
  timeoutMs?: number;
  /** The `fetch` to POST with. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default no-op */
  log?: ServiceLogger;
  /** The clock. @default () => new Date() */
  now?: () => Date;
};

/** Alerts per POST. */
const BATCH = 500;

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Pushes live alerts to Alertmanager's v2 API (`POST /api/v2/alerts`), the way Alertmanager
 * expects of a client: every firing alert at every delivery (each evaluation) with an `endsAt` a
 * few intervals ahead, and each alert that resolved within that time with `endsAt` set to when it
 * resolved, so Alertmanager resolves it at once rather than at its timeout. Alertmanager groups,
 * routes, silences and throttles the notifications itself; the users' preferences do not apply
 * (this is the operators' channel). Never throws: a failing URL is logged and counted.
 *
 * @example
 * ```ts
 * const channel = new AlertmanagerChannel({ urls: ["http://alertmanager:9093"] });
 * await channel.deliver(storage.alerts); // { sent: 3, failed: 0, deferred: 0 }
 * ```
 */
export class AlertmanagerChannel implements AlertChannel {
  readonly name = "alertmanager";
  readonly #o: Required<Omit<AlertmanagerChannelOptions, "publicUrl" | "urls">> & { publicUrl?: string };
  readonly #targets: Target[];

  constructor(options: AlertmanagerChannelOptions) {
    this.#o = {
      publicUrl: options.publicUrl,
      validForMs: options.validForMs ?? 240_000,
      maxAlerts: options.maxAlerts ?? 1000,
      timeoutMs: options.timeoutMs ?? 5000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      log: options.log ?? silent,
      now: options.now ?? (() => new Date()),
    };
    this.#targets = [...new Set(options.urls)].map(target);
  }

  /** Sends the firing and recently resolved alerts to every URL; `sent` counts alerts × URLs. Never rejects. */
  async deliver(store: AlertChannelStore): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0, deferred: 0 };
    if (this.#targets.length === 0) return report;
    const now = this.#o.now();
    let alerts: Alert[];
    try {
      const firing = await store.list({ state: "firing", limit: this.#o.maxAlerts });
      const resolved = await store.list({ state: "resolved", limit: this.#o.maxAlerts });
      const since = +now - this.#o.validForMs;
      alerts = [...firing, ...resolved.filter((a) => a.resolvedAt && Date.parse(a.resolvedAt) >= since)];
    } catch (error) {
      this.#o.log.warn({ err: error }, "alertmanager: could not read the alerts to send");
      return report;
    }
    if (alerts.length === 0) return report;
    const validUntil = new Date(+now + this.#o.validForMs);
    const body = alerts.map((a) => postableAlert(a, validUntil, this.#o.publicUrl));
    for (const t of this.#targets) {
      for (let i = 0; i < body.length; i += BATCH) {
        const batch = body.slice(i, i + BATCH);
        if (await this.#post(t, batch)) report.sent += batch.length;
        else report.failed += batch.length;
      }
    }
    return report;
  }

  async #post(t: Target, batch: unknown[]): Promise<boolean> {
    let reason: string;
    try {
      const response = await this.#o.fetch(t.alertsUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...t.headers },
        body: JSON.stringify(batch),
        signal: AbortSignal.timeout(this.#o.timeoutMs),
      });
      const text = await response.text().catch(() => "");
      if (response.ok) return true;
      reason = `HTTP ${response.status}: ${text.slice(0, 200)}`;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    this.#o.log.warn(
      { alertmanager: t.label, reason },
      "alertmanager: sending alerts failed; sent again next time",
    );
    return false;
  }
}

/** An Alertmanager to post to: credentials of its URL moved to a header (fetch refuses them in URLs). */
type Target = { alertsUrl: string; headers: Record<string, string>; label: string };

function target(url: string): Target {
  try {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    if (u.username || u.password) {
      const basic = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
      u.username = "";
      u.password = "";
    }
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/api/v2/alerts`;
    return { alertsUrl: u.toString(), headers, label: u.host };
  } catch {
    return { alertsUrl: "invalid:", headers: {}, label: "(invalid URL)" };
  }
}
