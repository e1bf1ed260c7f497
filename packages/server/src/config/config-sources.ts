import { readFile } from "node:fs/promises";
import { ConfigError } from "./config-error.js";
import { type ParseConfigOptions, parseServerConfig } from "./parse-config.js";
import type { ServerConfig } from "./server-config.js";

type Raw = Record<string, unknown>;

/** Environment variables and the setting each one fills. */
export const ENV_SETTINGS: Readonly<Record<string, string>> = {
  JOBSIGHT_DATA_DIR: "dataDir",
  JOBSIGHT_HOST: "http.host",
  JOBSIGHT_PORT: "http.port",
  JOBSIGHT_BODY_LIMIT_BYTES: "http.bodyLimitBytes",
  JOBSIGHT_LOG_LEVEL: "http.logLevel",
  JOBSIGHT_DATABASE_URL: "postgres.url",
  JOBSIGHT_DATABASE_POOL_SIZE: "postgres.poolSize",
  JOBSIGHT_TIMESCALE: "postgres.timescale",
  JOBSIGHT_OBJECT_STORE: "objectStore.kind",
  JOBSIGHT_OBJECT_DIR: "objectStore.dir",
  JOBSIGHT_S3_BUCKET: "objectStore.bucket",
  JOBSIGHT_S3_PREFIX: "objectStore.prefix",
  JOBSIGHT_S3_ENDPOINT: "objectStore.endpoint",
  JOBSIGHT_S3_REGION: "objectStore.region",
  JOBSIGHT_S3_FORCE_PATH_STYLE: "objectStore.forcePathStyle",
  JOBSIGHT_S3_ACCESS_KEY_ID: "objectStore.accessKeyId",
  JOBSIGHT_S3_SECRET_ACCESS_KEY: "objectStore.secretAccessKey",
  JOBSIGHT_RATE_LIMIT_RPS: "rateLimit.requestsPerSecond",
  JOBSIGHT_RATE_LIMIT_BURST: "rateLimit.burst",
  JOBSIGHT_REQUIRE_REGISTERED_CLUSTER: "ingest.requireRegisteredCluster",
  JOBSIGHT_OTLP_ENABLED: "otlp.enabled",
  JOBSIGHT_OTLP_HOST: "otlp.host",
  JOBSIGHT_OTLP_GRPC_PORT: "otlp.grpcPort",
  JOBSIGHT_OTLP_HTTP_PORT: "otlp.httpPort",
  JOBSIGHT_OTLP_DECODE_THREADS: "otlp.decodeThreads",
  JOBSIGHT_MODE: "intelligence.mode",
  JOBSIGHT_SHADOW_DAYS: "intelligence.shadowDays",
  JOBSIGHT_RETRAIN_INTERVAL_HOURS: "intelligence.retrainIntervalHours",
  JOBSIGHT_INTELLIGENCE_ENABLED: "intelligence.enabled",
  JOBSIGHT_OIDC_ISSUER: "oidc.issuer",
  JOBSIGHT_OIDC_AUDIENCE: "oidc.audience",
  JOBSIGHT_LICENCE: "licence.jws",
  JOBSIGHT_LICENCE_FILE: "licence.file",
  JOBSIGHT_CONTROL_PLANE_URL: "controlPlane.url",
  JOBSIGHT_TLS_CERT_FILE: "tls.certFile",
  JOBSIGHT_TLS_KEY_FILE: "tls.keyFile",
};

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

/** The settings given by `JOBSIGHT_*` environment variables, as a raw config layer. */
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
 * Defaults < file < environment < flags, then parsed and checked as a whole.
 *
 * @example
 * ```ts
 * const config = await loadServerConfig({ file: "jobsight.json", env: process.env, overrides: { http: { port: 9090 } } });
 * ```
 */
export async function loadServerConfig(sources: ConfigSources = {}): Promise<ServerConfig> {
  const file = sources.file ? await readConfigFile(sources.file) : {};
  const raw = mergeConfigLayers(file, configFromEnv(sources.env ?? {}), sources.overrides ?? {});
  return parseServerConfig(raw, { cwd: sources.cwd });
}
