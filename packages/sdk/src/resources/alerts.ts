import type { Alert, AlertAction, AlertActionList, AlertList, AlertState } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";
import { AlertPreferencesResource } from "./alert-preferences.js";
import { type AlertSubscribeOptions, pollAlerts } from "./alert-subscription.js";

/** Which alerts to list; every field narrows the answer. */
export type AlertListQuery = {
  /** Only this cluster's jobs. */
  cluster?: string;
  /** `firing` (the rule still holds) or `resolved`. */
  state?: AlertState;
  /** Only this user's jobs (a researcher's token sees only their own anyway). */
  user?: string;
  /** Most alerts answered, 1 to 1000. @default 100 */
  limit?: number;
};

/** Which actions under policy to list; every field narrows the answer. */
export type AlertActionQuery = {
  /** Only this cluster's jobs. */
  cluster?: string;
  /** Only this user's jobs (a researcher's token sees only their own anyway). */
  user?: string;
  /** Only this job. */
  jobId?: string;
  /** Most actions answered, 1 to 1000. @default 100 */
  limit?: number;
};

/** Live alerts over running jobs: GPUs idle, memory near its limit, cores idle. */
export class AlertsResource {
  /** How alerts and the weekly digest reach a user (opt-out, channels, quiet hours). */
  readonly preferences: AlertPreferencesResource;

  constructor(private readonly transport: Transport) {
    this.preferences = new AlertPreferencesResource(transport);
  }

  /**
   * The alerts the caller may see, most recently seen first: a researcher's own jobs', or every
   * job's for the platform team. Each cites the samples it rests on (`evidence`).
   *
   * @example
   * ```ts
   * for (const a of await client.alerts.list({ state: "firing" })) console.log(a.jobId, a.rule, a.message);
   * ```
   */
  async list(query: AlertListQuery = {}, options?: RequestOptions): Promise<Alert[]> {
    const answer = await this.transport.request<AlertList>({
      operationId: "listAlerts",
      query: { cluster: query.cluster, state: query.state, user: query.user, limit: query.limit },
      options,
    });
    return answer.alerts;
  }

  /**
   * Follows the alerts the caller may see: polls `GET /v1/alerts` (the server has no streaming
   * route) every `intervalMs` (default 30 s) and yields each alert once when it first appears, and
   * again only when its state, severity or resolution changes. Abort `signal` to stop: the loop
   * ends quietly. A poll that still fails after the client's retries throws out of the loop.
   * Without `state` in the query, a subscriber also sees alerts resolve.
   *
   * @example
   * ```ts
   * const stop = new AbortController();
   * for await (const a of client.alerts.subscribe({ cluster: "hpc1" }, { intervalMs: 60_000, signal: stop.signal }))
   *   console.log(a.state, a.jobId, a.rule, a.message);
   * ```
   */
  subscribe(query: AlertListQuery = {}, options: AlertSubscribeOptions = {}): AsyncGenerator<Alert, void> {
    return pollAlerts((request) => this.list(query, request), options);
  }

  /**
   * The audit log of actions under policy (idle-GPU jobs cancelled, dry-run decisions), newest
   * first, each with the evidence it rests on: a researcher's own jobs', or every job's for the
   * platform team.
   *
   * @example
   * ```ts
   * for (const a of await client.alerts.actions({ cluster: "hpc1" })) console.log(a.jobId, a.outcome, a.detail);
   * ```
   */
  async actions(query: AlertActionQuery = {}, options?: RequestOptions): Promise<AlertAction[]> {
    const answer = await this.transport.request<AlertActionList>({
      operationId: "listAlertActions",
      query: { cluster: query.cluster, user: query.user, jobId: query.jobId, limit: query.limit },
      options,
    });
    return answer.actions;
  }
}
