import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { CliIo } from "./cli-io.js";

/** The CLI's settings, after flags, environment and config file are merged. */
export type CliConfig = {
  /** Jobsight server URL. */
  url?: string;
  /** Bearer token. */
  token?: string;
  /** Cluster the submissions are for. */
  cluster?: string;
  /** Who submits (defaults to the login name). */
  user?: string;
  /** Deadline of one request attempt. */
  timeoutMs?: number;
  /** Retries of safe requests. */
  retries?: number;
};

/** Raised when the configuration has problems; lists every one as `where: path: message`. */
export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

const keys: Record<keyof CliConfig, "string" | "number"> = {
  url: "string",
  token: "string",
  cluster: "string",
  user: "string",
  timeoutMs: "number",
  retries: "number",
};

/** Where the config file is looked for when `--config` is not given. */
export function defaultConfigPath(io: Pick<CliIo, "env" | "home">): string {
  const base = io.env.XDG_CONFIG_HOME || join(io.home, ".config");
  return join(base, "jobsight", "config.json");
}

function check(config: CliConfig, where: string, problems: string[]): void {
  if (config.url !== undefined && !/^https?:\/\/[^\s/]+/.test(config.url)) {
    problems.push(`${where}: url: must be an http(s) URL, e.g. https://jobsight.example.org`);
  }
  if (config.cluster !== undefined && !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(config.cluster)) {
    problems.push(`${where}: cluster: must be a registered cluster id (lower-case letters, digits, - and _)`);
  }
  if (config.timeoutMs !== undefined && !(Number.isInteger(config.timeoutMs) && config.timeoutMs > 0)) {
    problems.push(`${where}: timeoutMs: must be a positive whole number of milliseconds`);
  }
  if (
    config.retries !== undefined &&
    !(Number.isInteger(config.retries) && config.retries >= 0 && config.retries <= 10)
  ) {
    problems.push(`${where}: retries: must be a whole number from 0 to 10`);
  }
}

async function readConfigFile(path: string, required: boolean, problems: string[]): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (required || (error as NodeJS.ErrnoException).code !== "ENOENT") {
      problems.push(`${path}: cannot be read (${(error as Error).message})`);
    }
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problems.push(`${path}: not JSON (${(error as Error).message})`);
    return {};
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${path}: must hold a JSON object`);
    return {};
  }
  const config: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const type = keys[key as keyof CliConfig];
    if (!type) problems.push(`${path}: ${key}: unknown setting (known: ${Object.keys(keys).join(", ")})`);
    else if (typeof v !== type) problems.push(`${path}: ${key}: must be a ${type}`);
    else config[key] = v;
  }
  return config as CliConfig;
}

function fromEnvironment(env: CliIo["env"], problems: string[]): CliConfig {
  const number = (name: string) => {
    const text = env[name];
    if (text === undefined || text === "") return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) problems.push(`environment: ${name}: must be a number`);
    return n;
  };
  return {
    url: env.JOBSIGHT_URL || undefined,
    token: env.JOBSIGHT_TOKEN || undefined,
    cluster: env.JOBSIGHT_CLUSTER || undefined,
    user: env.JOBSIGHT_USER || undefined,
    timeoutMs: number("JOBSIGHT_TIMEOUT_MS"),
    retries: number("JOBSIGHT_RETRIES"),
  };
}

function merge(...layers: CliConfig[]): CliConfig {
  const out: CliConfig = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined) (out as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/**
 * Resolve the configuration: flags over environment (`JOBSIGHT_URL`, `JOBSIGHT_TOKEN`,
 * `JOBSIGHT_CLUSTER`, `JOBSIGHT_USER`, `JOBSIGHT_TIMEOUT_MS`, `JOBSIGHT_RETRIES`) over the config
 * file (`--config`, else `$XDG_CONFIG_HOME/jobsight/config.json` or `~/.config/jobsight/config.json`).
 * Every problem is reported at once.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ url: "http://localhost:8080" }, undefined, io);
 * ```
 */
export async function loadConfig(
  flags: CliConfig,
  configPath: string | undefined,
  io: CliIo,
): Promise<CliConfig> {
  const problems: string[] = [];
  const path =
    configPath === undefined
      ? defaultConfigPath(io)
      : isAbsolute(configPath)
        ? configPath
        : resolve(io.cwd, configPath);
  const file = await readConfigFile(path, configPath !== undefined, problems);
  check(file, path, problems);
  const environment = fromEnvironment(io.env, problems);
  check(environment, "environment", problems);
  check(flags, "flags", problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return merge(file, environment, flags);
}
