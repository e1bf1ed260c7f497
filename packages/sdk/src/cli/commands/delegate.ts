import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { type CliIo, exitCodes } from "../cli-io.js";
import { loadConfig } from "../config.js";

const SERVER_PACKAGE = "@jobsight/server";
const SERVER_BIN = "jobsight-server";

/** Where the server package's bin is, or why it could not be found. */
export type ServerBin = { path: string } | { missing: string };

/**
 * Find the `jobsight-server` bin of `@jobsight/server`: the working directory's project first (as
 * with locally installed tools), then next to this package. The SDK never imports the server; it
 * only runs its bin.
 */
export function resolveServerBin(
  cwd: string,
  bases: string[] = [join(cwd, "package.json"), import.meta.url],
): ServerBin {
  for (const base of bases) {
    let manifestPath: string;
    try {
      manifestPath = createRequire(base).resolve(`${SERVER_PACKAGE}/package.json`);
    } catch {
      continue;
    }
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      bin?: string | Record<string, string>;
    };
    const relative = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[SERVER_BIN];
    if (!relative) return { missing: `${manifestPath} declares no ${SERVER_BIN} bin` };
    const path = resolve(dirname(manifestPath), relative);
    if (!existsSync(path)) {
      return {
        missing: `${SERVER_PACKAGE} is installed but ${path} does not exist; build it (pnpm --filter ${SERVER_PACKAGE} build)`,
      };
    }
    return { path };
  }
  return {
    // Only places this resolution searches: the project (`npm i`), or beside a global CLI (`npm i -g`).
    missing: `this command needs the Jobsight server package (${SERVER_PACKAGE}), which is not installed here. Install it where @jobsight/sdk is: 'npm i ${SERVER_PACKAGE}' in this project, or 'npm i -g ${SERVER_PACKAGE}' beside a global jobsight CLI (which also puts '${SERVER_BIN}' on the PATH: '${SERVER_BIN} serve'). In the Jobsight repository, run 'pnpm build' first.`,
  };
}

// Connection flags are the CLI's own; the server's bin gets them through the environment.
function splitConnectionFlags(args: string[]) {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^--(url|token|config|timeout)(?:=(.*))?$/.exec(args[i]);
    if (!m) {
      rest.push(args[i]);
      continue;
    }
    const value = m[2] ?? args[++i];
    if (value !== undefined) flags[m[1]] = value;
  }
  return { flags, rest };
}

// `jobsight server [options]` runs the server: the bin's command for that is `serve`.
const serverCommands: Record<string, string> = { server: "serve" };

/**
 * Run `jobsight-server <command> <args>` with stdio inherited and the resolved URL and token in
 * its environment (`jobsight server` runs `jobsight-server serve`); returns its exit code.
 */
export async function delegateToServer(command: string, args: string[], io: CliIo): Promise<number> {
  const bin = resolveServerBin(io.cwd);
  if ("missing" in bin) {
    io.stderr.write(`jobsight ${command}: ${bin.missing}\n`);
    return exitCodes.usage;
  }
  const { flags, rest } = splitConnectionFlags(args);
  const config = await loadConfig(
    {
      url: flags.url,
      token: flags.token,
      timeoutMs: flags.timeout === undefined ? undefined : Number(flags.timeout),
    },
    flags.config,
    io,
  );
  const env: Record<string, string | undefined> = { ...io.env };
  if (config.url) env.JOBSIGHT_URL = config.url;
  if (config.token) env.JOBSIGHT_TOKEN = config.token;
  if (config.cluster) env.JOBSIGHT_CLUSTER = config.cluster;
  const child = spawn(process.execPath, [bin.path, serverCommands[command] ?? command, ...rest], {
    stdio: "inherit",
    env,
    cwd: io.cwd,
  });
  return await new Promise<number>((resolveExit) => {
    child.on("error", (error) => {
      io.stderr.write(`jobsight ${command}: cannot run ${bin.path}: ${error.message}\n`);
      resolveExit(exitCodes.unreachable);
    });
    child.on("exit", (code, signal) => {
      resolveExit(code ?? (signal ? 128 + (signalNumbers[signal] ?? 1) : 1));
    });
  });
}

const signalNumbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
