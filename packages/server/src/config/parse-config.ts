import { isAbsolute, resolve } from "node:path";
import { ROLES } from "@jobsight/schemas";
import { hashApiToken } from "../platform/identity/api-token-hash.js";
import { readAdmission } from "./admission-config.js";
import { readAlerts } from "./alerts/alerts-config.js";
import { ConfigError } from "./config-error.js";
import { ConfigReader } from "./config-reader.js";
import { readCost } from "./cost/cost-config.js";
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

const CLUSTER_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SHA256_HEX = /^[a-f0-9]{64}$/;

/** Options of {@link parseServerConfig}. */
export type ParseConfigOptions = {
  /** Folder relative paths are resolved against. @default process.cwd() */
  cwd?: string;
};

/**
 * Parses, normalises and checks a raw configuration (file, environment and flags already merged),
 * reporting every problem at once. Types, bounds and defaults come from the option table
 * (`options.ts`); each section's cross-field rules run after its values are read.
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
  const dataDir = resolvePath(cwd, root.option("dataDir"));
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
  config.admission = readAdmission(root.child("admission"), tls?.caFile !== undefined);
  config.alerts = readAlerts(root.child("alerts"));
  const cost = readCost(root.child("cost"));
  if (cost) config.cost = cost;
  root.rejectUnknownKeys();
  if (root.issues.length > 0) throw new ConfigError(root.issues);
  return config;
}

function readHttp(r: ConfigReader): HttpConfig {
  const http: HttpConfig = {
    host: r.option("http.host"),
    port: r.option("http.port"),
    bodyLimitBytes: r.option("http.bodyLimitBytes"),
    requestTimeoutMs: r.option("http.requestTimeoutMs"),
    shutdownTimeoutMs: r.option("http.shutdownTimeoutMs"),
    logLevel: r.option("http.logLevel"),
  };
  r.rejectUnknownKeys();
  return http;
}

function readPostgres(r: ConfigReader, cwd: string): PostgresConfig {
  const url = r.option("postgres.url");
  const binDir = r.option("postgres.embeddedBinDir");
  const config: PostgresConfig = {
    poolSize: r.option("postgres.poolSize"),
    statementTimeoutMs: r.option("postgres.statementTimeoutMs"),
    migrate: r.option("postgres.migrate"),
    timescale: r.option("postgres.timescale"),
    embeddedPort: r.option("postgres.embeddedPort"),
  };
  r.rejectUnknownKeys();
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url))
    r.issue("url", "must start with postgres:// or postgresql://");
  if (url !== undefined) config.url = url;
  if (binDir !== undefined) config.embeddedBinDir = resolvePath(cwd, binDir);
  return config;
}

function readObjectStore(r: ConfigReader, dataDir: string, cwd: string): ObjectStoreConfig {
  // A bucket alone (e.g. JOBSIGHT_S3_BUCKET) is enough to choose S3.
  const kind = r.option("objectStore.kind", { default: r.has("bucket") ? "s3" : "local" });
  const dir = r.option("objectStore.dir");
  const bucket = r.option("objectStore.bucket");
  const prefix = r.option("objectStore.prefix");
  const endpoint = r.option("objectStore.endpoint");
  const region = r.option("objectStore.region");
  const forcePathStyle = r.option("objectStore.forcePathStyle");
  const accessKeyId = r.option("objectStore.accessKeyId");
  const secretAccessKey = r.option("objectStore.secretAccessKey");
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
    const token = t.option("auth.tokens[].token");
    const hash = t.option("auth.tokens[].tokenSha256");
    const role = t.option("auth.tokens[].role");
    const user = t.option("auth.tokens[].user");
    const cluster = t.option("auth.tokens[].cluster");
    const id = t.option("auth.tokens[].id") ?? `config-${i + 1}`;
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
    const tokenSha256 = hash ?? (token === undefined ? undefined : hashApiToken(token));
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
    enabled: r.option("rateLimit.enabled"),
    requestsPerSecond: r.option("rateLimit.requestsPerSecond"),
    burst: r.option("rateLimit.burst"),
  };
  r.rejectUnknownKeys();
  return config;
}

function readIngest(r: ConfigReader): IngestConfig {
  const config: IngestConfig = {
    maxConcurrentBatches: r.option("ingest.maxConcurrentBatches"),
    artifactMaxBytes: r.option("ingest.artifactMaxBytes"),
    retentionDays: r.option("ingest.retentionDays"),
    compressAfterDays: r.option("ingest.compressAfterDays"),
    requireRegisteredCluster: r.option("ingest.requireRegisteredCluster"),
  };
  r.rejectUnknownKeys();
  if (config.retentionDays > 0 && config.retentionDays <= config.compressAfterDays) {
    r.issue("retentionDays", `must be greater than compressAfterDays (${config.compressAfterDays}) or 0`);
  }
  return config;
}

function readOtlp(r: ConfigReader): OtlpConfig {
  const config: OtlpConfig = {
    enabled: r.option("otlp.enabled"),
    host: r.option("otlp.host"),
    grpcPort: r.option("otlp.grpcPort"),
    httpPort: r.option("otlp.httpPort"),
    maxMessageBytes: r.option("otlp.maxMessageBytes"),
    decodeThreads: r.option("otlp.decodeThreads"),
  };
  r.rejectUnknownKeys();
  if (config.enabled && config.grpcPort !== 0 && config.grpcPort === config.httpPort) {
    r.issue("httpPort", `must differ from grpcPort (${config.grpcPort})`);
  }
  return config;
}

function readIntelligence(r: ConfigReader): IntelligenceConfig {
  const config: IntelligenceConfig = {
    enabled: r.option("intelligence.enabled"),
    mode: r.option("intelligence.mode"),
    shadowDays: r.option("intelligence.shadowDays"),
    retrainIntervalHours: r.option("intelligence.retrainIntervalHours"),
    recalibrateIntervalHours: r.option("intelligence.recalibrateIntervalHours"),
    trainOnStart: r.option("intelligence.trainOnStart"),
  };
  const llm = readLlm(r.child("llm"));
  if (llm) config.llm = llm;
  r.rejectUnknownKeys();
  return config;
}

function resolvePath(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
