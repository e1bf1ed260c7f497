import type { AccuracyReport } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Recorded predictions compared with what jobs then did. */
export class AccuracyResource {
  constructor(private readonly transport: Transport) {}

  /**
   * The accuracy report (platform role), and whether the site is ready to leave shadow mode.
   *
   * @example
   * ```ts
   * const report = await client.accuracy.get({ cluster: "hpc1" });
   * console.log(report.readiness.ready, report.readiness.reasons);
   * ```
   */
  get(query: { cluster?: string } = {}, options?: RequestOptions): Promise<AccuracyReport> {
    return this.transport.request<AccuracyReport>({
      operationId: "getAccuracy",
      query: { cluster: query.cluster },
      options,
    });
  }
}
