import { parseArgs } from "node:util";
import type { UserSummary } from "@jobsight/schemas";
import { type CliIo, exitCodes } from "../cli-io.js";
import { renderTable } from "../table.js";
import { connectionOptions } from "./connection-options.js";
import {
  expectArguments,
  help,
  operatorClient,
  runSubcommand,
  type Subcommand,
  shortTime,
  writeJson,
} from "./operator-command.js";

function renderUsers(users: UserSummary[]): string {
  if (users.length === 0) return "no user has recorded jobs or a live API token\n";
  return renderTable(
    ["user", "clusters", "jobs", "last submitted", "live tokens"],
    users.map((u) => [
      u.user,
      u.clusters.join(",") || "—",
      String(u.jobs),
      shortTime(u.lastSubmittedAt),
      u.liveTokens > 0 ? `${u.liveTokens} (${u.tokenRoles.join(", ")})` : "0",
    ]),
  );
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" }, cluster: { type: "string" } },
  });
  if (values.help) return help("user", io);
  expectArguments(positionals, 0, "user list [--cluster <id>] [--json]");
  const users = await (await operatorClient(values, io)).users.list({ cluster: values.cluster });
  if (values.json) return writeJson({ users }, io);
  io.stdout.write(renderUsers(users));
  return exitCodes.ok;
}

const subcommands = new Map<string, Subcommand>([["list", list]]);

/** `jobsight user list` (site-wide admin): the users seen in recorded jobs and issued API tokens. */
export function runUser(args: string[], io: CliIo): Promise<number> {
  return runSubcommand("user", subcommands, args, io);
}
