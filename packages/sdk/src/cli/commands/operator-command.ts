import type { JobsightClient } from "../../client.js";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { helpTexts } from "../help.js";
import { connect } from "./connection-options.js";

/** One subcommand of an operator command (`cluster`, `token`, `user`, `model`). */
export type Subcommand = (args: string[], io: CliIo) => Promise<number>;

type ConnectionFlags = { url?: string; token?: string; config?: string; timeout?: string };

/**
 * A client for an operator command. The configured `cluster` and `user` (who submits, for
 * `predict`) are deliberately not applied: `--cluster` and `--user` here name what is acted on
 * (a token's cluster and user, a filter), never the caller.
 */
export async function operatorClient(values: ConnectionFlags, io: CliIo): Promise<JobsightClient> {
  return (await connect({ ...values, cluster: undefined, user: undefined }, io)).client;
}

/** Print `value` as indented JSON: the `--json` output of every operator command. */
export function writeJson(value: unknown, io: CliIo): number {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return exitCodes.ok;
}

/**
 * Exactly `count` positional arguments; otherwise a usage error quoting `usage`.
 *
 * @example
 * ```ts
 * const [id] = expectArguments(positionals, 1, "cluster remove <id> [--force]");
 * ```
 */
export function expectArguments(given: string[], count: number, usage: string): string[] {
  if (given.length === count) return given;
  const [command, subcommand] = usage.split(" ");
  const needs =
    count === 0
      ? "takes no arguments"
      : count === 1
        ? "needs exactly one argument"
        : `needs exactly ${count} arguments`;
  throw new UsageError(`${command} ${subcommand} ${needs}: jobsight ${usage}`);
}

/** Print the help of `command` to stdout. */
export function help(command: string, io: CliIo): number {
  io.stdout.write(helpTexts[command]);
  return exitCodes.ok;
}

/**
 * Run `jobsight <command> <subcommand> …`: no subcommand prints the help to stderr (usage exit),
 * `--help` to stdout, an unknown one is a usage error naming the command's help.
 */
export function runSubcommand(
  command: string,
  subcommands: ReadonlyMap<string, Subcommand>,
  args: string[],
  io: CliIo,
): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stderr.write(helpTexts[command]);
    return Promise.resolve(exitCodes.usage);
  }
  if (name === "--help" || name === "-h") return Promise.resolve(help(command, io));
  const run = subcommands.get(name);
  if (!run) throw new UsageError(`unknown ${command} command '${name}'; run 'jobsight ${command} --help'`);
  return run(rest, io);
}

/** A date of the API (ISO 8601) as people read it in a table: `2026-12-02 16:30`. */
export function shortTime(iso: string | undefined): string {
  return iso ? iso.slice(0, 16).replace("T", " ") : "—";
}

/**
 * `--limit` of a list command: undefined when not given (the server's default), else a whole
 * number from 1 to 1000, as the list routes accept.
 *
 * @example
 * ```ts
 * listLimit("50"); // 50
 * ```
 */
export function listLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 1000))
    throw new UsageError(`--limit must be a whole number from 1 to 1000, not ${value}`);
  return limit;
}
