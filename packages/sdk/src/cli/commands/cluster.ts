import { parseArgs } from "node:util";
import type { Cluster } from "@jobsight/schemas";
import { ConflictError } from "../../errors.js";
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

const SCHEDULERS = ["slurm", "kubernetes"] as const;

function renderClusters(clusters: Cluster[]): string {
  if (clusters.length === 0) return "no cluster is registered; add one with 'jobsight cluster add'\n";
  return renderTable(
    ["id", "name", "scheduler", "registered"],
    clusters.map((c) => [c.id, c.name, c.scheduler, shortTime(c.createdAt)]),
  );
}

async function list(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("cluster", io);
  expectArguments(positionals, 0, "cluster list [--json]");
  const clusters = await (await operatorClient(values, io)).clusters.list();
  if (values.json) return writeJson({ clusters }, io);
  io.stdout.write(renderClusters(clusters));
  return exitCodes.ok;
}

async function add(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      json: { type: "boolean" },
      name: { type: "string" },
      scheduler: { type: "string" },
    },
  });
  if (values.help) return help("cluster", io);
  const usage = "cluster add <id> --scheduler slurm|kubernetes [--name <text>]";
  const [id] = expectArguments(positionals, 1, usage);
  const scheduler = values.scheduler;
  if (scheduler === undefined) throw new UsageError(`cluster add needs --scheduler: jobsight ${usage}`);
  if (!(SCHEDULERS as readonly string[]).includes(scheduler))
    throw new UsageError(`--scheduler must be slurm or kubernetes, not ${scheduler}`);
  const cluster = await (await operatorClient(values, io)).clusters.register({
    id,
    name: values.name ?? id,
    scheduler: scheduler as Cluster["scheduler"],
  });
  if (values.json) return writeJson(cluster, io);
  io.stdout.write(`registered cluster ${cluster.id} (${cluster.name}, ${cluster.scheduler})\n`);
  return exitCodes.ok;
}

async function remove(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" }, force: { type: "boolean" } },
  });
  if (values.help) return help("cluster", io);
  const [id] = expectArguments(positionals, 1, "cluster remove <id> [--force]");
  const client = await operatorClient(values, io);
  let removed: Awaited<ReturnType<typeof client.clusters.remove>>;
  try {
    removed = await client.clusters.remove(id, { force: values.force === true });
  } catch (error) {
    if (error instanceof ConflictError && error.apiCode === "CLUSTER_HAS_JOBS") {
      throw new UsageError(
        `cluster ${id} has recorded jobs: removing it refuses its collectors and revokes its API tokens (the jobs are kept); run again with --force`,
      );
    }
    throw error;
  }
  if (values.json) return writeJson(removed, io);
  const tokens = removed.revokedTokens === 1 ? "1 API token" : `${removed.revokedTokens} API tokens`;
  io.stdout.write(`removed cluster ${id}: ${tokens} revoked, ${removed.jobs} recorded jobs kept\n`);
  return exitCodes.ok;
}

const subcommands = new Map<string, Subcommand>([
  ["list", list],
  ["add", add],
  ["remove", remove],
]);

/**
 * `jobsight cluster list|add|remove`: the clusters the server accepts data from. Adding is for
 * the platform and admin roles; removing, for a site-wide admin: it revokes the cluster's issued
 * tokens and keeps its recorded jobs, and a cluster with jobs needs `--force`.
 */
export function runCluster(args: string[], io: CliIo): Promise<number> {
  return runSubcommand("cluster", subcommands, args, io);
}
