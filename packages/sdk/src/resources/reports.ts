import type { WasteReport } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Reports over ended jobs (platform role). */
export class ReportsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Requested against used resources of ended jobs, by user, account or partition.
   *
   * @example
   * ```ts
   * const waste = await client.reports.waste({ by: "partition" });
   * for (const row of waste.rows) console.log(row.key, row.memoryRequestedByteSeconds / row.memoryUsedByteSeconds);
   * ```
   */
  waste(
    query: { cluster?: string; from?: string; to?: string; by?: "user" | "account" | "partition" } = {},
    options?: RequestOptions,
  ): Promise<WasteReport> {
    return this.transport.request<WasteReport>({ operationId: "getWasteReport", query, options });
  }
}
