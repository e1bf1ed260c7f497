import { parseArgs } from "node:util";
import type { AlertAction } from "@jobsight/schemas";
import { type CliIo, exitCodes } from "../cli-io.js";
import { renderTable } from "../table.js";
import { connect, connectionOptions } from "./connection-options.js";
import { expectArguments, help, listLimit, shortTime, writeJson } from "./operator-command.js";

function renderActions(actions: AlertAction[]): string {
  if (actions.length === 0) return "no actions\n";
  return renderTable(
    ["at", "outcome", "action", "rule", "cluster", "job", "user", "warned", "message"],
    actions.map((a) => [
      shortTime(a.at),
      a.outcome,
      a.kind,
      a.rule,
      a.cluster,
      a.jobId,
      a.user,
      shortTime(a.warnedAt),
      // A refused or failed action's reason is what the reader needs next to what was tried.
      a.detail ? `${a.message} (${a.detail})` : a.message,
    ]),
  );
}

/**
 * `jobsight alerts actions`: the audit log of actions under policy the caller may see (jobs
 * cancelled, submissions held, and what dry-run mode would have done), newest first, as a table or
 * JSON with each action's evidence.
 */
export async function runAlertActions(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      cluster: { type: "string" },
      user: { type: "string" },
      job: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (values.help) return help("alerts", io);
  expectArguments(positionals, 0, "alerts actions [--job <id>] [--json]");
  const limit = listLimit(values.limit);
  // --cluster and --user filter what is listed; the configured ones name the caller, not a filter.
  const { client } = await connect({ ...values, cluster: undefined, user: undefined }, io);
  const actions = await client.alerts.actions({
    cluster: values.cluster,
    user: values.user,
    jobId: values.job,
    limit,
  });
  if (values.json) return writeJson({ actions }, io);
  io.stdout.write(renderActions(actions));
  return exitCodes.ok;
}
