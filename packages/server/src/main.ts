#!/usr/bin/env node
import { parseArgs } from "node:util";
import { buildApp } from "./app.js";
import { ConfigError } from "./config/config-error.js";
import { loadServerConfig, setPath } from "./config/config-sources.js";
import { runImportCommand } from "./history/import-command.js";
import { SERVER_VERSION } from "./version.js";

const USAGE = `Usage: jobsight-server <command> [options]

Commands:
  serve     Run the server (data plane; embedded PostgreSQL and local objects unless configured)
  import    Import job history: import <file> --format sacct-json|sacct-parsable|swf --cluster <id>

Options of serve (flags win over JOBSIGHT_* variables, which win over the config file):
  --config <file>        JSON configuration file
  --host <address>       listen address (default 127.0.0.1)
  --port <port>          listen port, 0 for any (default 8080)
  --data-dir <dir>       data folder for the embedded PostgreSQL and objects (default ./.jobsight)
  --database-url <url>   PostgreSQL URL (default: embedded)
  --log-level <level>    fatal|error|warn|info|debug|trace|silent
  --version, --help
`;

const FLAG_SETTINGS: Record<string, string> = {
  host: "http.host",
  port: "http.port",
  "data-dir": "dataDir",
  "database-url": "postgres.url",
  "log-level": "http.logLevel",
};

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      "data-dir": { type: "string" },
      "database-url": { type: "string" },
      "log-level": { type: "string" },
    },
    strict: true,
  });
  const overrides: Record<string, unknown> = {};
  for (const [flag, path] of Object.entries(FLAG_SETTINGS)) {
    const value = values[flag as keyof typeof values];
    if (value !== undefined) setPath(overrides, path, value);
  }
  const config = await loadServerConfig({ file: values.config, env: process.env, overrides });
  const app = await buildApp({ config });

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
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  const address = await app.listen({ host: config.http.host, port: config.http.port });
  app.log.info(
    { url: address, version: SERVER_VERSION, storage: app.storage.flavour },
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
  process.stderr.write(`Unknown command ${command}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`jobsight-server: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
