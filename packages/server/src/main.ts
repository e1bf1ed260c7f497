#!/usr/bin/env node
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildApp } from "./app.js";
import { ConfigError } from "./config/config-error.js";
import { loadServerConfig } from "./config/config-sources.js";
import { configFromFlags, serveFlagOptions, serveFlagsUsage } from "./config/serve-flags.js";
import { runImportCommand } from "./data-plane/import/import-command.js";
import { IngestGate } from "./data-plane/ingest-gate.js";
import { type OtlpReceivers, startOtlpReceivers } from "./data-plane/otlp/otlp-receivers.js";
import { announceOwnerUrl, DataDirInUseError } from "./data-plane/storage/data-dir-owner.js";
import { EmbeddedPostgresAccessError } from "./data-plane/storage/postgres-os-user.js";
import { runBacktestCommand } from "./intelligence/accuracy/backtest/run-backtest-cli.js";
import { llmAdapter } from "./intelligence/diagnosis/explain/llm-from-config.js";
import { runTrainCommand } from "./intelligence/training/train-command.js";
import { runTokenCommand } from "./platform/identity/token-command.js";
import { createServerHeartbeat } from "./platform/licence/server-heartbeat.js";
import { SERVER_VERSION } from "./version.js";

const USAGE = `Usage: jobsight-server <command> [options]

Commands:
  serve     Run the server: REST API, OTLP receivers (gRPC :4317, HTTP :4318); embedded
            PostgreSQL and local objects unless configured
  import    Import job history: import <file> --format sacct|sacct-json|swf --cluster <id>
  train     Train the site's model now from stored history (--list, --rollback, --recalibrate, --json)
  backtest  Replay a trace under the evaluation protocol: backtest <trace.swf[.gz]> [--json] [--window 0.3]
  token     API tokens: token create --role collector|scheduler --cluster <id> | token list | token revoke <id>

Options of serve (flags win over JOBSIGHT_* variables, which win over the config file; every
setting and its variable: packages/server/README.md, "Configuration"):
${serveFlagsUsage()}
  --version, --help
`;

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: serveFlagOptions(), strict: true });
  const file = typeof values.config === "string" ? values.config : undefined;
  const config = await loadServerConfig({ file, env: process.env, overrides: configFromFlags(values) });
  // One gate for REST and OTLP ingest: back-pressure bounds the database work of both together.
  const ingestGate = new IngestGate(config.ingest.maxConcurrentBatches);
  const intel = config.intelligence;
  const app = await buildApp({
    config,
    ingestGate,
    intelligence: intel.enabled
      ? {
          mode: intel.mode,
          shadowDays: intel.shadowDays,
          retrainIntervalMs: intel.retrainIntervalHours * 3_600_000,
          recalibrateIntervalMs: intel.recalibrateIntervalHours * 3_600_000,
          trainOnStart: intel.trainOnStart,
          ...(intel.llm ? { llm: llmAdapter(intel.llm) } : {}),
        }
      : false,
  });
  let otlp: OtlpReceivers | undefined;

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) {
      app.log.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    const timer = setTimeout(() => {
      app.log.error("shutdown timed out; exiting");
      process.exit(1);
    }, config.http.shutdownTimeoutMs);
    timer.unref();
    // OTLP first: its in-flight exports commit while the pool is still open.
    (otlp?.close(config.http.shutdownTimeoutMs * 0.75) ?? Promise.resolve())
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  try {
    if (config.otlp.enabled) {
      otlp = await startOtlpReceivers({
        config,
        storage: app.storage,
        ingestGate,
        rateLimits: app.rateLimits,
        log: app.log.child({ component: "otlp" }),
        metrics: app.metrics,
      });
    }
  } catch (error) {
    await app.close();
    throw new Error(`OTLP receivers could not start on ${config.otlp.host}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Health, licence and aggregate counts only; off without controlPlane.url; never throws.
  const heartbeat = createServerHeartbeat({
    config: config.controlPlane,
    storage: app.storage,
    licence: app.licence,
    leader: () => app.leadership.isLeader,
    log: app.log.child({ component: "heartbeat" }),
  });
  app.addHook("onClose", async () => heartbeat.stop());
  const address = await app.listen({ host: config.http.host, port: config.http.port });
  // A command refused on the embedded database's folder can then say where this server answers.
  if (!config.postgres.url) {
    await announceOwnerUrl(join(config.dataDir, "postgres"), address).catch((error) =>
      app.log.warn({ err: error }, "could not record the server's URL in the data folder"),
    );
  }
  heartbeat.start();
  app.log.info(
    {
      url: address,
      version: SERVER_VERSION,
      storage: app.storage.flavour,
      ...(otlp ? { otlpGrpc: otlp.grpc.url, otlpHttp: otlp.http.url } : {}),
    },
    "jobsight-server listening",
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version") {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return 0;
  }
  if (!command || command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  if (command === "serve") {
    await serve(rest);
    return -1;
  }
  if (command === "import") return runImportCommand(rest);
  if (command === "backtest") return runBacktestCommand(rest);
  if (command === "train") return runTrainCommand(rest);
  if (command === "token") return runTokenCommand(rest);
  process.stderr.write(`Unknown command ${command}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    // Problems the user fixes from the message alone: no stack.
    if (
      error instanceof ConfigError ||
      error instanceof DataDirInUseError ||
      error instanceof EmbeddedPostgresAccessError
    ) {
      process.stderr.write(`${error.message}\n`);
    } else process.stderr.write(`jobsight-server: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
