import { readFile, stat } from "node:fs/promises";
import { ConfigError, type ConfigIssue } from "./config-error.js";
import { exposedSecretFileIssues, exposedSecretsIssue } from "./exposed-secrets.js";
import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";
import { type ParseConfigOptions, parseServerConfig } from "./parse-config.js";
import type { ServerConfig } from "./server-config.js";

type Raw = Record<string, unknown>;

/**
 * Environment variables and the setting each one fills, from the option table (`options.ts`).
 *
 * @example
 * ```ts
 * ENV_SETTINGS.JOBSIGHT_PORT; // "http.port"
 * ```
 */
export const ENV_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(
  serverOptions.flatMap((spec: OptionSpec) => (spec.env ? [[spec.env, spec.path]] : [])),
);

/** Sets `value` at a dotted path of `target`, creating objects on the way. */
export function setPath(target: Raw, path: string, value: unknown): void {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Raw;
  }
  node[keys[keys.length - 1]] = value;
}

/**
 * The settings given by `JOBSIGHT_*` environment variables, as a raw config layer of strings (the
 * parser converts them); empty variables are ignored.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): Raw {
  const layer: Raw = {};
  for (const [name, path] of Object.entries(ENV_SETTINGS)) {
    const value = env[name];
    if (value !== undefined && value !== "") setPath(layer, path, value);
  }
  return layer;
}

/**
 * Deep-merges config layers, later ones winning; arrays are replaced, not concatenated.
 *
 * @example
 * ```ts
 * mergeConfigLayers({ http: { port: 1 } }, { http: { host: "0.0.0.0" } }); // { http: { port: 1, host: "0.0.0.0" } }
 * ```
 */
export function mergeConfigLayers(...layers: Raw[]): Raw {
  const out: Raw = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      const prev = out[key];
      const bothObjects = [prev, value].every(
        (v) => typeof v === "object" && v !== null && !Array.isArray(v),
      );
      out[key] = bothObjects ? mergeConfigLayers(prev as Raw, value as Raw) : value;
    }
  }
  return out;
}

/** Reads a JSON configuration file; a missing or broken file is a {@link ConfigError}. */
export async function readConfigFile(path: string): Promise<Raw> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError([
      { path: path, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})` },
    ]);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ConfigError([{ path, message: "must contain a JSON object" }]);
    }
    return value as Raw;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([{ path, message: `is not valid JSON (${(error as Error).message})` }]);
  }
}

/** Where {@link loadServerConfig} takes settings from, lowest precedence first. */
export type ConfigSources = ParseConfigOptions & {
  /** JSON file. @default undefined */
  file?: string;
  /** Environment (only `JOBSIGHT_*` is read). @default {} */
  env?: NodeJS.ProcessEnv;
  /** Settings from command-line flags, highest precedence. @default {} */
  overrides?: Raw;
};

/**
 * Defaults < file < environment < flags, then parsed and checked as a whole. A file that holds
 * secrets and every user may read is refused, with its other problems; so are a TLS private key
 * (`tls.keyFile`) and a licence file (`licence.file`) others may read.
 *
 * @example
 * ```ts
 * const config = await loadServerConfig({ file: "jobsight.json", env: process.env, overrides: { http: { port: 9090 } } });
 * ```
 */
export async function loadServerConfig(sources: ConfigSources = {}): Promise<ServerConfig> {
  const file = sources.file ? await readConfigFile(sources.file) : {};
  const fileIssues: ConfigIssue[] = [];
  if (sources.file) {
    const issue = exposedSecretsIssue(sources.file, (await stat(sources.file)).mode, file);
    if (issue) fileIssues.push(issue);
  }
  const raw = mergeConfigLayers(file, configFromEnv(sources.env ?? {}), sources.overrides ?? {});
  let config: ServerConfig;
  try {
    config = parseServerConfig(raw, { cwd: sources.cwd });
  } catch (error) {
    if (error instanceof ConfigError && fileIssues.length > 0)
      throw new ConfigError([...fileIssues, ...error.issues]);
    throw error;
  }
  fileIssues.push(...(await exposedSecretFileIssues(config)));
  if (fileIssues.length > 0) throw new ConfigError(fileIssues);
  return config;
}
