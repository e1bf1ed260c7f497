import { readFileSync } from "node:fs";
import { describeFailure, UsageError } from "./cli-errors.js";
import { type CliIo, exitCodes } from "./cli-io.js";
import { runAlerts } from "./commands/alerts.js";
import { runCluster } from "./commands/cluster.js";
import { delegateToServer } from "./commands/delegate.js";
import { runDiagnose } from "./commands/diagnose.js";
import { runModel } from "./commands/model.js";
import { runPolicy } from "./commands/policy.js";
import { runPredict } from "./commands/predict.js";
import { runToken } from "./commands/token.js";
import { runUser } from "./commands/user.js";
import { runWaste } from "./commands/waste.js";
import { helpTexts } from "./help.js";

const delegated = new Set(["import", "backtest", "server"]);

const commands = new Map<string, (args: string[], io: CliIo) => Promise<number>>([
  ["predict", runPredict],
  ["diagnose", runDiagnose],
  ["alerts", runAlerts],
  ["policy", runPolicy],
  ["cluster", runCluster],
  ["token", runToken],
  ["user", runUser],
  ["model", runModel],
  ["waste", runWaste],
]);

function version(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
    ).version;
  } catch {
    return "unknown";
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr.write(helpTexts.main);
    return exitCodes.usage;
  }
  if (command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" ? rest[0] : undefined;
    if (topic !== undefined && !helpTexts[topic])
      throw new UsageError(`no command ${topic}; run 'jobsight --help'`);
    io.stdout.write(helpTexts[topic ?? "main"]);
    return exitCodes.ok;
  }
  if (command === "--version" || command === "-v") {
    io.stdout.write(`${version()}\n`);
    return exitCodes.ok;
  }
  const run = commands.get(command);
  if (run) return run(rest, io);
  if (delegated.has(command)) {
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(helpTexts[command]);
      return exitCodes.ok;
    }
    return delegateToServer(command, rest, io);
  }
  throw new UsageError(`unknown command '${command}'; run 'jobsight --help'`);
}

/**
 * Run the `jobsight` CLI with the given arguments; resolves to the exit code. Every failure is
 * printed to stderr as one line and mapped to an exit code CI can act on.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(["diagnose", "4242", "--format", "json"], io);
 * ```
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    const parseError = (error as { code?: string })?.code?.startsWith("ERR_PARSE_ARGS");
    const { exitCode, message } = parseError
      ? { exitCode: exitCodes.usage, message: (error as Error).message }
      : describeFailure(error);
    io.stderr.write(`jobsight: ${message}\n`);
    return exitCode;
  }
}
