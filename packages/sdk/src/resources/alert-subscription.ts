import type { Alert } from "@jobsight/schemas";
import { sleep } from "../http/retry-policy.js";
import type { RequestOptions } from "../http/transport.js";

/** How `client.alerts.subscribe()` polls the server. */
export type AlertSubscribeOptions = {
  /**
   * Time between the end of one poll of `GET /v1/alerts` and the start of the next, in ms. The
   * server evaluates its rules about once a minute, so polling much faster sees nothing new.
   * @default 30000
   */
  intervalMs?: number;
  /** Stops the subscription: a pending wait or request ends and the iteration returns quietly. */
  signal?: AbortSignal;
  /** Deadline of each poll, overriding the client's `timeoutMs`. @default the client's */
  timeoutMs?: number;
  /** Retries of each poll, overriding the client's `retries`. @default the client's */
  retries?: number;
};

/** The default time between two polls: half the server's default evaluation period. */
export const DEFAULT_ALERT_POLL_MS = 30_000;

// Ids remembered to yield each change once; beyond this, the longest-unchanged are forgotten.
const REMEMBERED_ALERTS = 10_000;

/**
 * What makes an alert "changed" for a subscriber: its state, severity or resolution. `lastSeen`,
 * `message` and `evidence` refresh at every evaluation while the rule holds, so they do not count.
 */
export function alertRevision(alert: Alert): string {
  return `${alert.state}|${alert.severity}|${alert.resolvedAt ?? ""}`;
}

/**
 * Polls `list` every `intervalMs` and yields each alert that is new or whose
 * {@link alertRevision} changed since it was last yielded, once, least recently seen first. Ends
 * without an error when `signal` aborts; a poll that fails after the client's retries throws out of
 * the iteration.
 *
 * @example
 * ```ts
 * for await (const a of pollAlerts((o) => client.alerts.list({}, o), { intervalMs: 60_000, signal })) notify(a);
 * ```
 */
export async function* pollAlerts(
  list: (options: RequestOptions) => Promise<Alert[]>,
  options: AlertSubscribeOptions = {},
): AsyncGenerator<Alert, void, undefined> {
  const { signal, intervalMs = DEFAULT_ALERT_POLL_MS, timeoutMs, retries } = options;
  if (!(Number.isFinite(intervalMs) && intervalMs >= 0))
    throw new RangeError(`intervalMs must be a finite number of ms, not ${intervalMs}`);
  const yielded = new Map<string, string>();
  while (!signal?.aborted) {
    let alerts: Alert[];
    try {
      alerts = await list({ signal, timeoutMs, retries });
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    // The answer is most recently seen first; a subscriber reads changes in the order they happened.
    for (const alert of [...alerts].reverse()) {
      const revision = alertRevision(alert);
      if (yielded.get(alert.id) === revision) continue;
      yielded.delete(alert.id);
      yielded.set(alert.id, revision);
      if (yielded.size > REMEMBERED_ALERTS) yielded.delete(yielded.keys().next().value as string);
      yield alert;
      if (signal?.aborted) return;
    }
    try {
      await sleep(intervalMs, signal);
    } catch {
      return;
    }
  }
}
