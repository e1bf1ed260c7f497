import { parseArgs } from "node:util";
import type { ModelChange, ModelStatus } from "@jobsight/schemas";
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

const percent = (x: number | undefined) => (x === undefined ? "—" : `${(x * 100).toFixed(1)}%`);

function renderStatus(status: ModelStatus): string {
  const served =
    status.servedVersion === status.activeVersion
      ? ""
      : `; this server predicts with ${status.servedVersion ?? "no model"} until it loads it`;
  const head = `in service: ${status.activeVersion ?? "none (no model trained yet)"}${served}\n`;
  if (status.models.length === 0) return head;
  const rows = status.models.map((m) => {
    const memory = m.backtest.memory;
    return [
      m.version,
      m.status,
      shortTime(m.createdAt),
      m.trigger,
      String(m.trainingJobs),
      m.resources.join(","),
      memory ? `${percent(memory.coverage)} / ${percent(memory.underPredictionRate)}` : "—",
    ];
  });
  return `${head}\n${renderTable(
    ["version", "status", "trained", "trigger", "jobs", "resources", "memory coverage / under"],
    rows,
  )}`;
}

function describeChange(change: ModelChange, verb: string): string {
  const from = change.previousVersion ? ` (was ${change.previousVersion})` : "";
  return `model ${change.activeVersion} ${verb}${from}\n`;
}

async function status(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("model", io);
  expectArguments(positionals, 0, "model status [--json]");
  const answer = await (await operatorClient(values, io)).models.status();
  if (values.json) return writeJson(answer, io);
  io.stdout.write(renderStatus(answer));
  return exitCodes.ok;
}

async function promote(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("model", io);
  const [version] = expectArguments(positionals, 1, "model promote <version> [--json]");
  const change = await (await operatorClient(values, io)).models.promote(version);
  if (values.json) return writeJson(change, io);
  io.stdout.write(describeChange(change, "is in service"));
  return exitCodes.ok;
}

async function rollback(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help("model", io);
  expectArguments(positionals, 0, "model rollback [--json]");
  let change: ModelChange;
  try {
    change = await (await operatorClient(values, io)).models.rollback();
  } catch (error) {
    if (error instanceof ConflictError && error.apiCode === "NO_EARLIER_MODEL")
      throw new UsageError("no earlier model to go back to; 'jobsight model status' lists the versions");
    throw error;
  }
  if (values.json) return writeJson(change, io);
  io.stdout.write(describeChange(change, "is in service again"));
  return exitCodes.ok;
}

const subcommands = new Map<string, Subcommand>([
  ["status", status],
  ["promote", promote],
  ["rollback", rollback],
]);

/**
 * `jobsight model status|promote|rollback`: the site's model versions and which one is in service
 * (status: platform and admin roles; promote and rollback: site-wide admin).
 */
export function runModel(args: string[], io: CliIo): Promise<number> {
  return runSubcommand("model", subcommands, args, io);
}
