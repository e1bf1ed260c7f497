#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=1 --max-old-space-size=128 --max-opt=1 --expose-gc
// Flags for a small resident size (rounds mostly wait on system calls): a 1 MiB young generation,
// no optimising compiler, `gc` exposed for HeapTrim; see docs/performance.md.
import { readFileSync } from "node:fs";
import { helpText, loadConfig, parseArgv } from "./config/load-config.js";
import { ConfigError } from "./errors.js";
import { createLogger } from "./log/logger.js";
import { startCollector } from "./start-collector.js";

function version(): string {
  try {
    return (
      JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    ).version;
  } catch {
    return "0.0.0";
  }
}

/**
 * `jobsight-collector epilog --job <id>`: ask the local collector for the job's final reading.
 * Always exits 0 and within a few seconds: a failing SLURM epilog drains the node.
 */
async function epilog(argv: string[]): Promise<number> {
  try {
    const { flags } = parseArgv(argv);
    const job = flags.get("--job") ?? process.env.SLURM_JOB_ID;
    const port = flags.get("--health-port") ?? process.env.JOBSIGHT_HEALTH_PORT ?? "9465";
    const host = flags.get("--health-host") ?? process.env.JOBSIGHT_HEALTH_HOST ?? "127.0.0.1";
    if (!job) return 0;
    await fetch(`http://${host}:${port}/v1/epilog?job=${encodeURIComponent(job)}`, {
      method: "POST",
      signal: AbortSignal.timeout(3000),
    });
  } catch {
    // The collector may be down; the job's end is still seen when its cgroup disappears.
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0] && !argv[0].startsWith("--") ? argv[0] : "run";
  const rest = command === argv[0] ? argv.slice(1) : argv;
  if (command === "epilog") return epilog(rest);
  if (rest.includes("--help") || command === "help") {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }
  if (rest.includes("--version")) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (command !== "run") {
    process.stderr.write(`unknown command "${command}" (see --help)\n`);
    return 2;
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ argv: rest });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (rest.includes("--print-config")) {
    const shown = {
      ...config,
      backend: { ...config.backend, token: config.backend.token ? "***" : undefined },
    };
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return 0;
  }
  const log = createLogger({ level: config.log.level, base: { service: "jobsight-collector" } });
  // Listening before the collector starts: a signal while it starts (its nvidia-smi may already
  // run) stops it cleanly once started, instead of killing the process with its children left.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info("stopping", { signal });
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  let running: Awaited<ReturnType<typeof startCollector>>;
  try {
    running = await startCollector({ config, logger: log, version: version() });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  await stopped;
  await running.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "collector failed", error: String(error) })}\n`,
    );
    process.exit(1);
  },
);
