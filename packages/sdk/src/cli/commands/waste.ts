import { parseArgs } from "node:util";
import type { ResourceCost, WasteReport, WasteRow } from "@jobsight/schemas";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { renderTable } from "../table.js";
import { connect, connectionOptions } from "./connection-options.js";
import { expectArguments, help, writeJson } from "./operator-command.js";

const HOUR = 3600;
const GIB = 2 ** 30;
const GROUPINGS = new Set(["user", "account", "partition"]);

const hours = (seconds: number) => (seconds / HOUR).toFixed(1);
const unused = (requested: number, used: number) => hours(Math.max(0, requested - used));

// The currency's own notation, e.g. €12.50.
function formatMoney(amount: number, currency: string): string {
  return new Intl.NumberFormat("en", { style: "currency", currency }).format(amount);
}

function moneyCell(cost: ResourceCost | undefined, currency: string): string {
  if (!cost) return "—";
  const total = formatMoney(cost.total, currency);
  return cost.unpriced?.length ? `${total} (${cost.unpriced.join(", ")} not priced)` : total;
}

function renderWaste(report: WasteReport): string {
  const currency = report.rates?.currency;
  const headers = [
    report.by,
    "jobs",
    "core-h unused",
    "GiB-h unused",
    "GPU-h unused",
    "core-h idle",
    "GPU-h idle",
  ];
  if (currency) headers.push(`unused (${currency})`, `idle (${currency})`);
  const rows = report.rows.map((r: WasteRow) => {
    const cells = [
      r.key || "(none)",
      String(r.jobs),
      unused(r.coreSecondsRequested, r.coreSecondsUsed),
      unused(r.memoryRequestedByteSeconds / GIB, r.memoryUsedByteSeconds / GIB),
      unused(r.gpuSecondsRequested, r.gpuSecondsUsed),
      // No samples is unknown, not zero idle.
      (r.observedCoreSeconds ?? 0) > 0 ? hours(r.idleCoreSeconds ?? 0) : "—",
      (r.observedGpuSeconds ?? 0) > 0 ? hours(r.idleGpuSeconds ?? 0) : "—",
    ];
    if (currency) cells.push(moneyCell(r.cost?.unused, currency), moneyCell(r.cost?.idle, currency));
    return cells;
  });
  return report.rows.length === 0 ? "no ended jobs\n" : renderTable(headers, rows);
}

function renderSavings(report: WasteReport): string {
  const s = report.savings;
  if (!s) return "";
  const amounts = `${s.coreHours.toFixed(1)} core-hours, ${s.memoryGibHours.toFixed(1)} GiB-hours, ${s.gpuHours.toFixed(1)} GPU-hours`;
  const money = s.cost && report.rates ? `${moneyCell(s.cost, report.rates.currency)}: ` : "";
  return (
    `\nSavings had the advice been applied, ${s.from.slice(0, 10)} to ${s.to.slice(0, 10)}: ${money}${amounts}` +
    ` (${s.jobsWithAdvice} of ${s.jobs} jobs had advice asking for less${s.truncated ? "; a lower bound" : ""}).\n`
  );
}

/**
 * `jobsight waste`: reserved and unused hours of ended jobs by user, account or partition (platform
 * role), in money when the server has rates configured, and with `--savings` what the recorded
 * advice would have saved over the last 30 days.
 */
export async function runWaste(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      by: { type: "string" },
      cluster: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      savings: { type: "boolean" },
      json: { type: "boolean" },
    },
  });
  if (values.help) return help("waste", io);
  expectArguments(positionals, 0, "waste [--by user|account|partition] [--savings] [--json]");
  if (values.by !== undefined && !GROUPINGS.has(values.by))
    throw new UsageError(`--by must be user, account or partition, not ${values.by}`);
  // --cluster filters the report; the configured one names the caller, not a filter.
  const { client } = await connect({ ...values, cluster: undefined }, io);
  const report = await client.reports.waste({
    by: values.by as WasteReport["by"] | undefined,
    cluster: values.cluster,
    from: values.from,
    to: values.to,
    savings: values.savings,
  });
  if (values.json) return writeJson(report, io);
  io.stdout.write(renderWaste(report) + renderSavings(report));
  return exitCodes.ok;
}
