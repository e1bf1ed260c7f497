import { parseArgs } from "node:util";
import type { Alert } from "@jobsight/schemas";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { renderTable } from "../table.js";
import { runAlertActions } from "./alert-actions.js";
import { runAlertPreferences } from "./alert-preferences.js";
import { connect, connectionOptions } from "./connection-options.js";
import { expectArguments, help, listLimit, shortTime, writeJson } from "./operator-command.js";

const STATES = new Set(["firing", "resolved"]);

function renderAlerts(alerts: Alert[]): string {
  if (alerts.length === 0) return "no alerts\n";
  return renderTable(
    ["state", "severity", "rule", "cluster", "job", "user", "last seen", "message"],
    alerts.map((a) => [
      a.state,
      a.severity,
      a.rule,
      a.cluster,
      a.jobId,
      a.user,
      shortTime(a.lastSeen),
      a.message,
    ]),
  );
}

/**
 * `jobsight alerts`: the live alerts the caller may see (a researcher's own jobs', or every job's
 * for the platform team), as a table or JSON; `jobsight alerts actions` lists the audit log of
 * actions under policy; `jobsight alerts preferences` reads and sets how alerts reach the caller.
 */
export async function runAlerts(args: string[], io: CliIo): Promise<number> {
  if (args[0] === "preferences") return runAlertPreferences(args.slice(1), io);
  if (args[0] === "actions") return runAlertActions(args.slice(1), io);
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      state: { type: "string" },
      cluster: { type: "string" },
      user: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (values.help) return help("alerts", io);
  expectArguments(positionals, 0, "alerts [--state firing|resolved] [--json]");
  if (values.state !== undefined && !STATES.has(values.state))
    throw new UsageError(`--state must be firing or resolved, not ${values.state}`);
  const limit = listLimit(values.limit);
  // --cluster and --user filter what is listed; the configured ones name the caller, not a filter.
  const { client } = await connect({ ...values, cluster: undefined, user: undefined }, io);
  const alerts = await client.alerts.list({
    state: values.state as Alert["state"] | undefined,
    cluster: values.cluster,
    user: values.user,
    limit,
  });
  if (values.json) return writeJson({ alerts }, io);
  io.stdout.write(renderAlerts(alerts));
  return exitCodes.ok;
}
