import type { ServerConfig } from "../../config/server-config.js";
import { ApiTokenVerifier } from "../../platform/identity/api-token-verifier.js";
import type { TokenVerifier } from "../../platform/identity/principal.js";
import { loadTlsMaterial } from "../../platform/tls.js";
import { reloadTlsOnChange } from "../../platform/tls-reload.js";
import { IngestGate } from "../ingest-gate.js";
import type { DataPlaneStorage } from "../storage/storage.js";
import type { RateLimitStore } from "../stores/rate-limit-store.js";
import { ClusterRegistry } from "./cluster-registry.js";
import { type GrpcReceiver, startGrpcReceiver } from "./grpc-receiver.js";
import { type HttpReceiver, startHttpReceiver } from "./http-receiver.js";
import { type OtlpExportObserver, OtlpIngest } from "./otlp-ingest.js";
import type { OtlpLogger } from "./otlp-logger.js";

/** Options of {@link startOtlpReceivers}. */
export type OtlpReceiversOptions = {
  /**
   * The parsed configuration: `otlp`, `ingest`, `auth.tokens`, `rateLimit`, `http.requestTimeoutMs`
   * and `tls` (absent: both listeners are plaintext).
   */
  config: Pick<ServerConfig, "otlp" | "ingest" | "auth" | "rateLimit" | "http" | "tls">;
  /**
   * Open storage (the app's `app.storage`); not closed by the receivers. Its job records give a
   * node-wide reading that names only its node to the job that had the node alone then, and a
   * container's that names only its `container.id` to the job whose record lists the container.
   */
  storage: Pick<DataPlaneStorage, "samples" | "clusters" | "tokens" | "jobs">;
  /** Back-pressure shared with REST ingest. @default new IngestGate(config.ingest.maxConcurrentBatches) */
  ingestGate?: IngestGate;
  /**
   * The request counts of the REST API (`app.rateLimits`), so one limiter, shared by the replicas
   * on the database, serves both. @default counts of the receivers' own, in this process only
   */
  rateLimits?: RateLimitStore;
  /** Verifiers tried after the API tokens. @default [] */
  verifiers?: readonly TokenVerifier[];
  /** Logger (the app's). @default silent */
  log?: OtlpLogger;
  /** Counts exports (the app's `app.metrics`, served by `GET /metrics`). @default not counted */
  metrics?: OtlpExportObserver;
  /** How often the TLS files are read again for a renewal, in milliseconds. @default 30000 */
  tlsReloadIntervalMs?: number;
};

/** Both OTLP listeners and the ingest behind them. */
export type OtlpReceivers = {
  grpc: GrpcReceiver;
  http: HttpReceiver;
  ingest: OtlpIngest;
  /** Reads the TLS files now and serves them if they changed; true when new ones were put in force. */
  reloadTls(): Promise<boolean>;
  /**
   * Graceful stop: no new exports, the ones in flight finish and commit (gRPC calls still running
   * after `timeoutMs` are cut off; their senders resend).
   */
  close(timeoutMs?: number): Promise<void>;
};

/**
 * Starts the OTLP/gRPC and OTLP/HTTP receivers on `config.otlp.host` with the REST API's tokens
 * (collector role), its rate limits, `ingest.requireRegisteredCluster`, and its certificate: with
 * `config.tls` both listeners serve TLS only (their `url`s are `https://…`).
 *
 * @throws {SecurityConfigError} (path `tls.*`) when `config.tls` names files that are missing or
 * do not match, before any listener starts.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config, ingestGate });
 * const otlp = await startOtlpReceivers({
 *   config, storage: app.storage, ingestGate, rateLimits: app.rateLimits, log: app.log,
 * });
 * // …
 * await otlp.close();
 * await app.close();
 * ```
 */
export async function startOtlpReceivers(options: OtlpReceiversOptions): Promise<OtlpReceivers> {
  const { config, storage, log } = options;
  // Read before anything listens, so a bad certificate path fails fast with nothing to undo.
  const tls = config.tls ? await loadTlsMaterial(config.tls) : undefined;
  const apiTokens = new ApiTokenVerifier({ tokens: config.auth.tokens, store: storage.tokens });
  const ingest = new OtlpIngest({
    storage,
    jobs: storage.jobs,
    verifiers: [apiTokens, ...(options.verifiers ?? [])],
    ingestGate: options.ingestGate ?? new IngestGate(config.ingest.maxConcurrentBatches),
    ...(config.ingest.requireRegisteredCluster
      ? { registry: new ClusterRegistry({ clusters: storage.clusters }) }
      : {}),
    ...(config.rateLimit.enabled
      ? {
          rateLimit: {
            requestsPerSecond: config.rateLimit.requestsPerSecond,
            burst: config.rateLimit.burst,
            ...(options.rateLimits ? { store: options.rateLimits } : {}),
          },
        }
      : {}),
    decodeThreads: config.otlp.decodeThreads,
    ...(log ? { log } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const common = {
    ingest,
    host: config.otlp.host,
    maxMessageBytes: config.otlp.maxMessageBytes,
    log,
    ...(tls ? { tls } : {}),
  };
  const grpc = await startGrpcReceiver({ ...common, port: config.otlp.grpcPort });
  let http: HttpReceiver;
  try {
    http = await startHttpReceiver({
      ...common,
      port: config.otlp.httpPort,
      requestTimeoutMs: config.http.requestTimeoutMs,
    });
  } catch (error) {
    await grpc.close(0);
    await ingest.close();
    throw error;
  }
  // Renewed certificates reach both listeners without a restart, as they reach the API's.
  const reload =
    tls && config.tls
      ? reloadTlsOnChange(
          (material) => {
            grpc.setTls(material);
            http.setTls(material);
          },
          config.tls,
          {
            ...(log ? { log } : {}),
            ...(options.tlsReloadIntervalMs ? { intervalMs: options.tlsReloadIntervalMs } : {}),
          },
        )
      : undefined;
  return {
    grpc,
    http,
    ingest,
    reloadTls: async () => (await reload?.check()) ?? false,
    close: async (timeoutMs = 20_000) => {
      reload?.stop();
      await Promise.all([grpc.close(timeoutMs), http.close(timeoutMs)]);
      await ingest.drained();
      await ingest.close();
    },
  };
}
