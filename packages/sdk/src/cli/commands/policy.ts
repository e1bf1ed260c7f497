import { parseArgs } from "node:util";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { helpTexts } from "../help.js";
import { createStyle } from "../terminal-style.js";
import { connect, connectionOptions } from "./connection-options.js";
import { readPolicyFile } from "./policy-file.js";
import { renderAudit, renderPolicy, renderSimulation } from "./policy-render.js";

const AUDIT_LIMIT = 50;
const MAX_PAGE = 1000;

type ConnectionFlags = { url?: string; token?: string; config?: string; timeout?: string };

// The policy is site-wide: --cluster and --user only narrow what is read, so the configured
// cluster and user (who submits, for `predict`) are deliberately not applied here.
async function connectClient(values: ConnectionFlags, io: CliIo) {
  return (await connect({ ...values, cluster: undefined, user: undefined }, io)).client;
}

function oneFile(positionals: string[], command: string): string {
  if (positionals.length !== 1)
    throw new UsageError(
      `policy ${command} needs exactly one policy file: jobsight policy ${command} policy.json`,
    );
  return positionals[0];
}

function noPositionals(positionals: string[], command: string): void {
  if (positionals.length > 0)
    throw new UsageError(`policy ${command} takes no arguments, not ${positionals[0]}`);
}

function time(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new UsageError(`--${flag} must be an ISO 8601 time such as 2026-11-25T00:00:00Z, not ${value}`);
  // The API takes full RFC 3339 timestamps; a bare date is accepted here and sent as midnight UTC.
  return new Date(ms).toISOString();
}

function writeJson(value: unknown, io: CliIo): number {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return exitCodes.ok;
}

async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...connectionOptions, json: { type: "boolean" } },
  });
  if (values.help) return help(io);
  noPositionals(positionals, "show");
  const policy = await (await connectClient(values, io)).policy.get();
  if (values.json) return writeJson(policy, io);
  io.stdout.write(renderPolicy(policy, createStyle(io.stdout, io.env)));
  return exitCodes.ok;
}

async function validate(args: string[], io: CliIo): Promise<number> {
  // No connection options: validating needs no server, and a stray --url is more likely a mistake.
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h" } },
  });
  if (values.help) return help(io);
  const file = oneFile(positionals, "validate");
  const policy = await readPolicyFile(file, io);
  io.stdout.write(`${file}: valid policy ${policy.name}\n`);
  return exitCodes.ok;
}

async function simulate(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      json: { type: "boolean" },
      cluster: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
    },
  });
  if (values.help) return help(io);
  const policy = await readPolicyFile(oneFile(positionals, "simulate"), io);
  const from = time("from", values.from);
  const to = time("to", values.to);
  if (from && to && from >= to) throw new UsageError(`--from ${from} must be before --to ${to}`);
  const cluster = values.cluster;
  // Left out, the period is the server's: the 7 days before --to (or before now).
  const sim = await (await connectClient(values, io)).policy.simulate({ policy, cluster, from, to });
  if (values.json) return writeJson(sim, io);
  io.stdout.write(renderSimulation(sim, createStyle(io.stdout, io.env), cluster));
  return exitCodes.ok;
}

async function set(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: connectionOptions });
  if (values.help) return help(io);
  const policy = await readPolicyFile(oneFile(positionals, "set"), io);
  const stored = await (await connectClient(values, io)).policy.put(policy);
  io.stdout.write(`stored policy ${stored.name}\n`);
  return exitCodes.ok;
}

async function audit(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      json: { type: "boolean" },
      cluster: { type: "string" },
      user: { type: "string" },
      limit: { type: "string" },
    },
  });
  if (values.help) return help(io);
  noPositionals(positionals, "audit");
  const limit = values.limit === undefined ? AUDIT_LIMIT : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive whole number, not ${values.limit}`);
  const records = await (await connectClient(values, io)).policy
    .audit({
      cluster: values.cluster,
      user: values.user,
      limit: Math.min(limit, MAX_PAGE),
    })
    .toArray(limit);
  if (values.json) return writeJson(records, io);
  io.stdout.write(renderAudit(records, createStyle(io.stdout, io.env)));
  return exitCodes.ok;
}

function help(io: CliIo): number {
  io.stdout.write(helpTexts.policy);
  return exitCodes.ok;
}

const subcommands = new Map<string, (args: string[], io: CliIo) => Promise<number>>([
  ["show", show],
  ["validate", validate],
  ["simulate", simulate],
  ["set", set],
  ["audit", audit],
]);

/**
 * `jobsight policy show|validate|simulate|set|audit`: read, check, try out, replace and audit the
 * platform team's policy. A file is checked locally (schema, then contradicting rules) before
 * anything is sent, so `validate` answers offline what `set` would be refused for.
 */
export async function runPolicy(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined) {
    io.stderr.write(helpTexts.policy);
    return exitCodes.usage;
  }
  if (command === "--help" || command === "-h") return help(io);
  const run = subcommands.get(command);
  if (!run) throw new UsageError(`unknown policy command '${command}'; run 'jobsight policy --help'`);
  return run(rest, io);
}
