import type { WasteReport } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Reports over ended jobs (platform role). */
export class ReportsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Requested against used resources of ended jobs, by user, account or partition. When the
   * server has rates configured (`cost.*`), each row carries its `cost` in `rates.currency`;
   * `savings: true` adds what the recorded advice would have saved over the last 30 days.
   *
   * @example
   * ```ts
   * const waste = await client.reports.waste({ by: "partition", savings: true });
   * for (const row of waste.rows) console.log(row.key, row.cost?.unused.total, waste.rates?.currency);
   * console.log(waste.savings?.coreHours, waste.savings?.cost?.total);
   * ```
   */
  waste(
    query: {
      cluster?: string;
      from?: string;
      to?: string;
      by?: "user" | "account" | "partition";
      /** Add what the advice would have saved over the 30 days before `to`. @default false */
      savings?: boolean;
    } = {},
    options?: RequestOptions,
  ): Promise<WasteReport> {
    return this.transport.request<WasteReport>({ operationId: "getWasteReport", query, options });
  }
}
