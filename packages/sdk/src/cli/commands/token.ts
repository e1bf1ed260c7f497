import { parseArgs } from "node:util";
import { type ApiToken, ROLES, type Role } from "@jobsight/schemas";
import type { JobsightClient } from "../../client.js";
import { NotFoundError } from "../../errors.js";
import { UsageError } from "../cli-errors.js";
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

const CREATE = "token create --role <role> [--cluster <id>] [--user <name>] [--label <text>]";
const MACHINE_ROLES: readonly Role[] = ["collector", "scheduler"];

/** Who a token acts as, for people: `researcher alice on hpc1`, `collector on hpc1`, `admin ops`. */
function describeToken(t: ApiToken): string {
  return [t.role, t.user, t.cluster ? `on ${t.cluster}` : undefined].filter(Boolean).join(" ");
}

// The server refuses the same; checked here first so the message names the flags.
function checkCreateFlags(
  role: string | undefined,
  cluster: string | undefined,
  user: string | undefined,
): Role {
  if (role === undefined) throw new UsageError(`token create needs --role: jobsight ${CREATE}`);
  if (!(ROLES as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${ROLES.join(", ")}, not ${role}`);
  if (MACHINE_ROLES.includes(role as Role) && cluster === undefined)
    throw new UsageError(`a ${role} token is bound to one cluster: add --cluster <id>`);
  if (!MACHINE_ROLES.includes(role as Role) && user === undefined)
    throw new UsageError(`a ${role} token acts as a user: add --user <name>`);
  if (role === "admin" && cluster !== undefined)
    throw new UsageError("an admin token is site-wide: leave out --cluster");
  return role as Role;
}

async function unknownCluster(client: JobsightClient, cluster: string): Promise<UsageError> {
  // Naming the registered clusters helps with a typo; the listing is only a courtesy.
  const registered = await client.clusters.list().then(
    (clusters) => (clusters.length > 0 ? `registered: ${clusters.map((c) => c.id).join(", ")}` : "none is"),
    () => undefined,
  );
  return new UsageError(
    `cluster ${cluster} is not registered${registered ? ` (${registered})` : ""}; add it first: jobsight cluster add ${cluster} --scheduler slurm|kubernetes`,
  );
}

async function create(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      json: { type: "boolean" },
      role: { type: "string" },
      cluster: { type: "string" },
      user: { type: "string" },
      label: { type: "string" },
    },
  });
  if (values.help) return help("token", io);
  expectArguments(positionals, 0, CREATE);
  const role = checkCreateFlags(values.role, values.cluster, values.user);
  const client = await operatorClient(values, io);
  let issued: Awaited<ReturnType<typeof client.tokens.create>>;
  try {
    issued = await client.tokens.create({
      role,
      ...(values.cluster !== undefined ? { cluster: values.cluster } : {}),
      ...(values.user !== undefined ? { user: values.user } : {}),
      ...(values.label !== undefined ? { label: values.label } : {}),
    });
  } catch (error) {
    if (error instanceof NotFoundError && error.apiCode === "UNKNOWN_CLUSTER" && values.cluster)
      throw await unknownCluster(client, values.cluster);
    throw error;
  }
  // The secret goes to stdout alone (TOKEN=$(jobsight token create …)), and nowhere else.
  if (values.json) return writeJson(issued, io);
  io.stdout.write(`${issued.token}\n`);
  io.stderr.write(
    `token ${issued.apiToken.id} (${describeToken(issued.apiToken)}) created; it is shown only this once\n`,
  );
  return exitCodes.ok;
}

function renderTokens(tokens: ApiToken[]): string {
  if (tokens.length === 0) return "no API token has been issued\n";
  return renderTable(
    ["id", "prefix", "role", "cluster", "user", "created", "state", "label"],
    tokens.map((t) => [
      t.id,
      t.prefix ? `${t.prefix}…` : "—",
      t.role,
      t.cluster ?? "all",
      t.user ?? "—",
      shortTime(t.createdAt),
      t.revokedAt ? `revoked ${shortTime(t.revokedAt)}` : "live",
      t.label ?? "",
    ]),
  );
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("token", io);
  expectArguments(positionals, 0, "token list [--json]");
  const tokens = await (await operatorClient(values, io)).tokens.list();
  if (values.json) return writeJson({ tokens }, io);
  io.stdout.write(renderTokens(tokens));
  return exitCodes.ok;
}

async function revoke(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("token", io);
  const [id] = expectArguments(positionals, 1, "token revoke <id> [--json]");
  const revoked = await (await operatorClient(values, io)).tokens.revoke(id);
  if (values.json) return writeJson(revoked, io);
  io.stdout.write(
    `token ${revoked.id} (${describeToken(revoked)}) revoked since ${shortTime(revoked.revokedAt)}\n`,
  );
  return exitCodes.ok;
}

const subcommands = new Map<string, Subcommand>([
  ["create", create],
  ["list", list],
  ["revoke", revoke],
]);

/**
 * `jobsight token create|list|revoke` (site-wide admin): API tokens issued by the server. A new
 * token's secret is printed once, alone on stdout (with `--json`, in the JSON document), and is
 * never written anywhere else.
 */
export function runToken(args: string[], io: CliIo): Promise<number> {
  return runSubcommand("token", subcommands, args, io);
}
