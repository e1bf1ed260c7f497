import {
  createExportMetricsResponse,
  type DecodeObservationsOptions,
  type ExportMetricsServiceResponse,
  type OtlpHttpEncoding,
  type RejectedSample,
  type SkippedPoints,
} from "@jobsight/otel-bridge";
import { ForbiddenError, RateLimitedError, UnauthenticatedError } from "../../errors.js";
import { hashApiToken } from "../../platform/identity/api-token-hash.js";
import type { Principal, TokenVerifier } from "../../platform/identity/principal.js";
import type { IngestGate } from "../ingest-gate.js";
import type { DataPlaneStorage, JobStore } from "../storage/storage.js";
import { RateLimitStore } from "../stores/rate-limit-store.js";
import type { ClusterRegistry } from "./cluster-registry.js";
import { attributeContainersFromStore } from "./container-attribution.js";
import type { DecodedBatch } from "./decode-batch.js";
import { OtlpDecodePool } from "./decode-pool.js";
import { addSkipped, attributeFromStore } from "./host-attribution.js";
import type { OtlpLogger } from "./otlp-logger.js";

/** Options of {@link OtlpIngest}. */
export type OtlpIngestOptions = {
  /** Where samples go: the same exactly-once sample store as REST ingest (batches are prepared for its flavour). */
  storage: Pick<DataPlaneStorage, "samples">;
  /** Bearer token verifiers (the API tokens of the REST API). */
  verifiers: readonly TokenVerifier[];
  /** Back-pressure, shared with REST ingest. */
  ingestGate: IngestGate;
  /** Refuses collectors of unregistered clusters; absent: any cluster may send. @default undefined */
  registry?: ClusterRegistry;
  /**
   * Per-token request rate limit (a budget of `burst` requests refilled at `requestsPerSecond`),
   * counted in `store`: the REST API's (`app.rateLimits`), so one limiter, shared by the replicas
   * on the database, serves both; OTLP requests have budgets of their own (keys `otlp:t:<sha256>`).
   * Absent: none. @default undefined
   */
  rateLimit?: {
    requestsPerSecond: number;
    burst: number;
    /** @default a store of this ingest's own, counting in this process only */
    store?: RateLimitStore;
  };
  /** Worker threads that decode exports (see {@link OtlpDecodePool}); 0: the event loop's. @default 0 */
  decodeThreads?: number;
  /** Where a decode worker's failure is logged. @default silent */
  log?: OtlpLogger;
  /** Counts what each export stored, rejected and skipped (the server's metrics). @default none */
  metrics?: OtlpExportObserver;
  /**
   * Job records, to give a node-wide standard input that names only its node (`host.name`) to the
   * job that had the node alone then (see `host-attribution.ts`), and a container's that names only
   * its `container.id` to the job whose record lists the container (see
   * `container-attribution.ts`). Absent: such points are skipped as `unattributed` and
   * `container_unmapped`. @default undefined
   */
  jobs?: Pick<JobStore, "onNodes" | "withContainers">;
};

/** What one export did, for the server's metrics. */
export type OtlpExportFigures = {
  accepted: number;
  duplicates: number;
  rejected: number;
  skipped: SkippedPoints;
};

/** Told about every stored export (`ServerMetrics` is one). */
export interface OtlpExportObserver {
  observeOtlpExport(figures: OtlpExportFigures): void;
}

/** What one export stored and answered. */
export type OtlpExportOutcome = {
  /** The OTLP answer: empty on full success, `partialSuccess` when points were rejected. */
  response: ExportMetricsServiceResponse;
  /** Samples newly stored. */
  accepted: number;
  /** Samples already stored before (resends). */
  duplicates: number;
  /** Data points rejected. */
  rejected: number;
  /** The samples those points belong to, where they name one (the gRPC receiver sends them back). */
  rejectedSamples: RejectedSample[];
  /** Data points skipped without an error (unknown metrics, standard inputs naming no job). */
  skipped: number;
};

/**
 * The transport-independent half of the OTLP receiver: who may send (a collector token bound to
 * a registered cluster, within its rate), and the export itself (decode, drop points of other
 * clusters, map to samples, store them exactly once and commit, then answer with partial
 * success for whatever was rejected). The gRPC and HTTP receivers only move bytes and map
 * errors to status codes (see `otlpFailure`).
 *
 * Points naming another cluster than the token's are rejected one by one (partial success),
 * not the whole request, so a gateway that mixes in a stray series does not lose the rest.
 *
 * @example
 * ```ts
 * const ingest = new OtlpIngest({ storage, verifiers, ingestGate });
 * const principal = await ingest.authorize(metadata.get("authorization")[0]);
 * const { response } = await ingest.export(principal, (options) => ingest.decode(body, "protobuf", options));
 * ```
 */
export class OtlpIngest {
  readonly #options: OtlpIngestOptions;
  readonly #limit?: { store: RateLimitStore; max: number; windowMs: number; owned: boolean };
  readonly #decoder: OtlpDecodePool;
  #inFlight = 0;
  #idle: (() => void)[] = [];

  constructor(options: OtlpIngestOptions) {
    this.#options = options;
    this.#decoder = new OtlpDecodePool({
      threads: options.decodeThreads ?? 0,
      log: options.log,
      flavour: options.storage.samples.flavour,
    });
    if (options.rateLimit) {
      const { burst, requestsPerSecond, store } = options.rateLimit;
      // The REST API's mapping: `burst` per `burst / requestsPerSecond` seconds, refilled continuously.
      this.#limit = {
        store: store ?? new RateLimitStore(),
        max: burst,
        windowMs: Math.trunc((burst / requestsPerSecond) * 1000),
        owned: !store,
      };
    }
  }

  /** Exports being decoded or stored right now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Checks an `Authorization` value (`Bearer <token>`): a valid collector token bound to a
   * (registered) cluster, within its request rate.
   *
   * @throws {UnauthenticatedError} {@link ForbiddenError} `ClusterNotRegisteredError` {@link RateLimitedError}
   */
  async authorize(authorization: string | undefined): Promise<Principal & { cluster: string }> {
    const token = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    if (!token) throw new UnauthenticatedError("A bearer token (Authorization: Bearer …) is required");
    // Limited by the token's hash before verification, so floods of bad tokens never reach the database.
    const limit = this.#limit;
    const wait = limit ? limit.store.take(`otlp:t:${hashApiToken(token)}`, limit.max, limit.windowMs) : 0;
    if (wait > 0) throw new RateLimitedError(wait, "Too many OTLP requests for this token; slow down");
    let principal: Principal | undefined;
    for (const verifier of this.#options.verifiers) {
      principal = await verifier.verify(token);
      if (principal) break;
    }
    if (!principal) throw new UnauthenticatedError("The bearer token is not valid");
    if (principal.role !== "collector") {
      throw new ForbiddenError(`Role ${principal.role} may not send metrics; a collector token is required`);
    }
    const cluster = principal.cluster;
    if (!cluster) throw new ForbiddenError("A collector token must be bound to a cluster");
    await this.#options.registry?.assertRegistered(cluster);
    return { ...principal, cluster };
  }

  /**
   * Decodes and stores one export for `principal`; resolves after COMMIT. `decode` (the
   * transport's decoder, given the options that confine it to the caller's cluster) runs inside
   * the ingest gate, so decompressed bodies and decoded requests count against back-pressure.
   *
   * @throws {RateLimitedError} when too many batches are in flight; `OtlpDecodeError` from `decode`;
   *   `StorageUnavailableError` when PostgreSQL is unreachable.
   */
  async export(
    principal: Principal & { cluster: string },
    decode: (options: DecodeObservationsOptions) => DecodedBatch | Promise<DecodedBatch>,
  ): Promise<OtlpExportOutcome> {
    this.#inFlight++;
    try {
      return await this.#options.ingestGate.run(async () => {
        const { jobs, storage } = this.#options;
        const attribute = jobs !== undefined;
        const batch = await decode({
          cluster: principal.cluster,
          hostOnly: attribute,
          containerOnly: attribute,
        });
        const { prepared, rejected, skipped, release } = batch;
        const stored = await storage.samples.insertPrepared(prepared);
        release?.();
        if (jobs && (batch.hostOnly.length > 0 || batch.containerOnly.length > 0)) {
          // One query each for the nodes and the containers the export names, then one insert.
          const host = await attributeFromStore(jobs, principal.cluster, batch.hostOnly);
          const container = await attributeContainersFromStore(jobs, principal.cluster, batch.containerOnly);
          addSkipped(skipped, host.skipped);
          addSkipped(skipped, container.skipped);
          const more = await storage.samples.insert([...host.samples, ...container.samples]);
          stored.accepted += more.accepted;
          stored.duplicates += more.duplicates;
        }
        this.#observe({
          accepted: stored.accepted,
          duplicates: stored.duplicates,
          rejected: rejected.count,
          skipped,
        });
        return {
          response: createExportMetricsResponse(rejected.count, rejected.description),
          accepted: stored.accepted,
          duplicates: stored.duplicates,
          rejected: rejected.count,
          rejectedSamples: rejected.samples,
          skipped: skipped.count,
        };
      });
    } finally {
      this.#inFlight--;
      if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  // Telemetry never fails the export it describes.
  #observe(figures: OtlpExportFigures): void {
    try {
      this.#options.metrics?.observeOtlpExport(figures);
    } catch (error) {
      this.#options.log?.warn({ err: error }, "counting an OTLP export failed");
    }
  }

  /**
   * Decodes a body for {@link export}: on a decode worker when there are any.
   *
   * @throws {OtlpDecodeError} for a body that does not decode.
   */
  decode(
    body: Uint8Array,
    encoding: OtlpHttpEncoding,
    options: DecodeObservationsOptions,
    handover: { transfer?: boolean } = {},
  ): Promise<DecodedBatch> {
    return this.#decoder.decode(body, encoding, options, handover);
  }

  /** Ends the decode workers (after {@link drained}), and the rate-limit store if it is this ingest's own. */
  async close(): Promise<void> {
    await this.#decoder.close();
    if (this.#limit?.owned) await this.#limit.store.close();
  }

  /** Resolves once no export is in flight (for a graceful shutdown). */
  drained(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
