import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { ROLES, type Role } from "@jobsight/schemas";
import { ConfigError } from "./config-error.js";
import { ConfigReader } from "./config-reader.js";
import { readLlm } from "./llm-config.js";
import { readControlPlane, readLicence, readOidc, readTls } from "./security-config.js";
import type {
  ApiTokenConfig,
  HttpConfig,
  IngestConfig,
  IntelligenceConfig,
  ObjectStoreConfig,
  OtlpConfig,
  PostgresConfig,
  RateLimitConfig,
  ServerConfig,
} from "./server-config.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const CLUSTER_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SHA256_HEX = /^[a-f0-9]{64}$/;

/** Options of {@link parseServerConfig}. */
export type ParseConfigOptions = {
  /** Folder relative paths are resolved against. @default process.cwd() */
  cwd?: string;
};

/**
 * Parses, normalises and checks a raw configuration (file, environment and flags already merged),
 * reporting every problem at once.
 *
 * @throws {ConfigError} listing each problem as `path: message`.
 * @example
 * ```ts
 * const config = parseServerConfig({ http: { port: "8080" }, postgres: { url: process.env.DATABASE_URL } });
 * ```
 */
export function parseServerConfig(raw: unknown, options: ParseConfigOptions = {}): ServerConfig {
  const cwd = options.cwd ?? process.cwd();
  const root = new ConfigReader(raw);
  const dataDir = resolvePath(cwd, root.string("dataDir", { default: "./.jobsight" })!);
  const config: ServerConfig = {
    dataDir,
    http: readHttp(root.child("http")),
    postgres: readPostgres(root.child("postgres"), cwd),
    objectStore: readObjectStore(root.child("objectStore"), dataDir, cwd),
    auth: { tokens: readTokens(root.child("auth")) },
    rateLimit: readRateLimit(root.child("rateLimit")),
    ingest: readIngest(root.child("ingest")),
    otlp: readOtlp(root.child("otlp")),
    intelligence: readIntelligence(root.child("intelligence")),
    licence: readLicence(root.child("licence"), cwd),
    controlPlane: readControlPlane(root.child("controlPlane")),
  };
  const oidc = readOidc(root.child("oidc"));
  if (oidc) config.oidc = oidc;
  const tls = readTls(root.child("tls"), cwd);
  if (tls) config.tls = tls;
  root.rejectUnknownKeys();
  if (root.issues.length > 0) throw new ConfigError(root.issues);
  return config;
}

function readHttp(r: ConfigReader): HttpConfig {
  const http: HttpConfig = {
    host: r.string("host", { default: "127.0.0.1" })!,
    port: r.integer("port", { default: 8080, min: 0, max: 65535 })!,
    bodyLimitBytes: r.integer("bodyLimitBytes", { default: 16 * 1024 * 1024, min: 1024 })!,
    requestTimeoutMs: r.integer("requestTimeoutMs", { default: 120_000, min: 0 })!,
    shutdownTimeoutMs: r.integer("shutdownTimeoutMs", { default: 20_000, min: 0 })!,
    logLevel: r.string("logLevel", { default: "info", oneOf: LOG_LEVELS }) as HttpConfig["logLevel"],
  };
  r.rejectUnknownKeys();
  return http;
}

function readPostgres(r: ConfigReader, cwd: string): PostgresConfig {
  const url = r.string("url");
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url))
    r.issue("url", "must start with postgres:// or postgresql://");
  const binDir = r.string("embeddedBinDir");
  const config: PostgresConfig = {
    poolSize: r.integer("poolSize", { default: 10, min: 1, max: 1000 })!,
    statementTimeoutMs: r.integer("statementTimeoutMs", { default: 60_000, min: 0 })!,
    migrate: r.boolean("migrate", { default: true })!,
    timescale: r.string("timescale", {
      default: "auto",
      oneOf: ["auto", "off", "require"],
    }) as PostgresConfig["timescale"],
    embeddedPort: r.integer("embeddedPort", { default: 0, min: 0, max: 65535 })!,
  };
  if (url !== undefined) config.url = url;
  if (binDir !== undefined) config.embeddedBinDir = resolvePath(cwd, binDir);
  r.rejectUnknownKeys();
  return config;
}

function readObjectStore(r: ConfigReader, dataDir: string, cwd: string): ObjectStoreConfig {
  // A bucket alone (e.g. JOBSIGHT_S3_BUCKET) is enough to choose S3.
  const kind = r.string("kind", { default: r.has("bucket") ? "s3" : "local", oneOf: ["local", "s3"] });
  const dir = r.string("dir");
  const bucket = r.string("bucket");
  const prefix = r.string("prefix", { default: "", nonEmpty: false })!;
  const endpoint = r.string("endpoint");
  const region = r.string("region", { default: "us-east-1" })!;
  const forcePathStyle = r.boolean("forcePathStyle", { default: false })!;
  const accessKeyId = r.string("accessKeyId");
  const secretAccessKey = r.string("secretAccessKey");
  r.rejectUnknownKeys();
  if (kind !== "s3") {
    for (const key of ["bucket", "endpoint", "accessKeyId", "secretAccessKey"]) {
      if (r.has(key)) r.issue(key, "only applies to kind s3");
    }
    return { kind: "local", dir: dir ? resolvePath(cwd, dir) : resolve(dataDir, "objects") };
  }
  if (dir !== undefined) r.issue("dir", "only applies to kind local");
  if (bucket === undefined) r.issue("bucket", "is required for kind s3");
  if (endpoint !== undefined && !/^https?:\/\//.test(endpoint)) r.issue("endpoint", "must be an http(s) URL");
  if (prefix.startsWith("/")) r.issue("prefix", "must not start with /");
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    r.issue(
      accessKeyId === undefined ? "accessKeyId" : "secretAccessKey",
      "accessKeyId and secretAccessKey go together",
    );
  }
  const config: ObjectStoreConfig = { kind: "s3", bucket: bucket ?? "", prefix, region, forcePathStyle };
  if (endpoint !== undefined) config.endpoint = endpoint;
  if (accessKeyId !== undefined) config.accessKeyId = accessKeyId;
  if (secretAccessKey !== undefined) config.secretAccessKey = secretAccessKey;
  return config;
}

function readTokens(r: ConfigReader): ApiTokenConfig[] {
  const tokens: ApiTokenConfig[] = [];
  const seenHashes = new Map<string, number>();
  r.list("tokens").forEach((t, i) => {
    const token = t.string("token");
    const hash = t.string("tokenSha256");
    const role = t.string("role", { oneOf: ROLES }) as Role | undefined;
    const user = t.string("user");
    const cluster = t.string("cluster");
    const id = t.string("id", { default: `config-${i + 1}` })!;
    t.rejectUnknownKeys();
    if (token === undefined && hash === undefined) t.issue("", "needs token or tokenSha256");
    if (token !== undefined && hash !== undefined) t.issue("token", "give token or tokenSha256, not both");
    if (token !== undefined && token.length < 16) t.issue("token", "must be at least 16 characters");
    if (hash !== undefined && !SHA256_HEX.test(hash))
      t.issue("tokenSha256", "must be 64 lower-case hex digits");
    if (!t.has("role")) t.issue("role", `is required (${ROLES.join(", ")})`);
    if (user === undefined) t.issue("user", "is required");
    if (cluster !== undefined && !CLUSTER_ID.test(cluster))
      t.issue("cluster", "must be a cluster id ([a-z0-9][a-z0-9_-]*)");
    if ((role === "collector" || role === "scheduler") && cluster === undefined) {
      t.issue("cluster", `is required for role ${role}`);
    }
    const tokenSha256 =
      hash ?? (token === undefined ? undefined : createHash("sha256").update(token).digest("hex"));
    if (tokenSha256 !== undefined) {
      const first = seenHashes.get(tokenSha256);
      if (first !== undefined) t.issue("", `is the same token as auth.tokens[${first}]`);
      else seenHashes.set(tokenSha256, i);
    }
    if (tokenSha256 && role && user) {
      tokens.push({ id, tokenSha256, role, user, ...(cluster === undefined ? {} : { cluster }) });
    }
  });
  r.rejectUnknownKeys();
  return tokens;
}

function readRateLimit(r: ConfigReader): RateLimitConfig {
  const config: RateLimitConfig = {
    enabled: r.boolean("enabled", { default: true })!,
    requestsPerSecond: r.integer("requestsPerSecond", { default: 50, min: 1 })!,
    burst: r.integer("burst", { default: 200, min: 1 })!,
  };
  r.rejectUnknownKeys();
  return config;
}

function readIngest(r: ConfigReader): IngestConfig {
  const config: IngestConfig = {
    maxConcurrentBatches: r.integer("maxConcurrentBatches", { default: 8, min: 1, max: 1000 })!,
    artifactMaxBytes: r.integer("artifactMaxBytes", { default: 32 * 1024 * 1024, min: 1 })!,
    retentionDays: r.integer("retentionDays", { default: 90, min: 0 })!,
    compressAfterDays: r.integer("compressAfterDays", { default: 7, min: 1 })!,
    requireRegisteredCluster: r.boolean("requireRegisteredCluster", { default: true })!,
  };
  r.rejectUnknownKeys();
  if (config.retentionDays > 0 && config.retentionDays <= config.compressAfterDays) {
    r.issue("retentionDays", `must be greater than compressAfterDays (${config.compressAfterDays}) or 0`);
  }
  return config;
}

function readOtlp(r: ConfigReader): OtlpConfig {
  const config: OtlpConfig = {
    enabled: r.boolean("enabled", { default: true })!,
    host: r.string("host", { default: "127.0.0.1" })!,
    grpcPort: r.integer("grpcPort", { default: 4317, min: 0, max: 65535 })!,
    httpPort: r.integer("httpPort", { default: 4318, min: 0, max: 65535 })!,
    maxMessageBytes: r.integer("maxMessageBytes", { default: 20 * 1024 * 1024, min: 1024 })!,
    decodeThreads: r.integer("decodeThreads", {
      default: Math.min(4, Math.max(0, availableParallelism() - 1)),
      min: 0,
      max: 64,
    })!,
  };
  r.rejectUnknownKeys();
  if (config.enabled && config.grpcPort !== 0 && config.grpcPort === config.httpPort) {
    r.issue("httpPort", `must differ from grpcPort (${config.grpcPort})`);
  }
  return config;
}

function readIntelligence(r: ConfigReader): IntelligenceConfig {
  const config: IntelligenceConfig = {
    enabled: r.boolean("enabled", { default: true })!,
    mode: r.string("mode", {
      default: "auto",
      oneOf: ["auto", "shadow", "live"],
    }) as IntelligenceConfig["mode"],
    shadowDays: r.integer("shadowDays", { default: 30, min: 0, max: 3650 })!,
    retrainIntervalHours: r.integer("retrainIntervalHours", { default: 24, min: 0, max: 24 * 365 })!,
    trainOnStart: r.boolean("trainOnStart", { default: true })!,
  };
  const llm = readLlm(r.child("llm"));
  if (llm) config.llm = llm;
  r.rejectUnknownKeys();
  return config;
}

function resolvePath(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
