import type { Alert, AlertList, AlertState } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

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

/** Live alerts over running jobs: GPUs idle, memory near its limit, cores idle. */
export class AlertsResource {
  constructor(private readonly transport: Transport) {}

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
}
