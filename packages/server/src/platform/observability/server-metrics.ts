import { monitorEventLoopDelay } from "node:perf_hooks";
import type { LicenceState } from "../licence/licence.js";
import { MetricsRegistry } from "./metrics-registry.js";

/** What one OTLP export did (the OTLP ingest's `OtlpExportFigures`). */
export type OtlpExportCounts = {
  accepted: number;
  duplicates: number;
  rejected: number;
  skipped: { byReason: Partial<Record<string, Record<string, number>>> };
};

// Metric names a sender chooses become label values: past this many, they count as "other".
const MAX_SKIPPED_NAMES = 200;
const LICENCE_STATES: readonly LicenceState[] = ["valid", "grace", "expired", "missing", "invalid"];
// Seconds: API answers are ms-scale, batch ingest and training reads seconds-scale.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the server's metrics read at scrape time; each is optional. */
export type ServerMetricsSources = {
  /** The licence's state now. @default not reported */
  licence?: () => LicenceState;
  /** The database pool's connections. @default not reported */
  pool?: () => { total: number; idle: number; waiting: number };
  /** The model being served and the prediction mode. @default not reported */
  model?: () => { version: string | undefined; mode: string };
  /** Whether this replica leads the scheduled work of the replicas on its database. @default not reported */
  leader?: () => boolean;
};

/**
 * The server's own metrics: requests by operation and status with their durations, the process
 * (CPU, memory, event-loop delay), the database pool, the licence state and the served model.
 * Only counts and timings: no user, job or token ever becomes a label (each metric declares its
 * label names). The metrics live in a prom-client registry of this instance's own.
 *
 * @example
 * ```ts
 * const metrics = new ServerMetrics({ licence: () => app.licence.status().state });
 * metrics.observeRequest("listJobs", 200, 0.004);
 * reply.type(metrics.contentType).send(await metrics.render());
 * ```
 */
export class ServerMetrics {
  readonly #registry = new MetricsRegistry();
  readonly #requests = this.#registry.counter(
    "jobsight_http_requests_total",
    "HTTP requests answered, by operation of the route table and status code.",
    ["operation", "status"],
  );
  readonly #durations = this.#registry.histogram(
    "jobsight_http_request_duration_seconds",
    "Time from receiving a request to sending its answer, by operation.",
    ["operation"],
    DURATION_BUCKETS,
  );
  readonly #otlpSamples = this.#registry.counter(
    "jobsight_otlp_samples_total",
    "Usage samples received over OTLP: newly stored (accepted) or already stored (duplicate).",
    ["outcome"],
  );
  readonly #otlpRejected = this.#registry.counter(
    "jobsight_otlp_points_rejected_total",
    "OTLP data points refused (counted in the partial-success answer).",
  );
  readonly #otlpSkipped = this.#registry.counter(
    "jobsight_otlp_points_skipped_total",
    "OTLP data points set aside without an error, by reason and metric name (unknown_metric, unattributed, container_unmapped, not_applicable, no_job_on_node, node_shared).",
    ["reason", "metric"],
  );
  readonly #skippedNames = new Set<string>();
  readonly #loopDelay = monitorEventLoopDelay({ resolution: 20 });

  constructor(sources: ServerMetricsSources = {}) {
    const r = this.#registry;
    const one = (value: number) => [{ labels: {}, value }];
    r.gauge(
      "process_cpu_seconds_total",
      "User and system CPU time of the server process.",
      [],
      () => {
        const { user, system } = process.cpuUsage();
        return one((user + system) / 1e6);
      },
      "counter",
    );
    r.gauge("process_resident_memory_bytes", "Resident memory of the server process.", [], () =>
      one(process.memoryUsage.rss()),
    );
    r.gauge("nodejs_heap_used_bytes", "V8 heap in use.", [], () => one(process.memoryUsage().heapUsed));
    this.#loopDelay.enable();
    r.gauge("nodejs_eventloop_delay_p99_seconds", "99th percentile event-loop delay since start.", [], () =>
      one(this.#loopDelay.percentile(99) / 1e9),
    );
    const { pool, licence, model, leader } = sources;
    if (pool) {
      r.gauge("jobsight_db_pool_connections", "Database pool connections by state.", ["state"], () => {
        const p = pool();
        return [
          { labels: { state: "idle" }, value: p.idle },
          { labels: { state: "busy" }, value: p.total - p.idle },
          { labels: { state: "waiting_clients" }, value: p.waiting },
        ];
      });
    }
    if (licence) {
      r.gauge(
        "jobsight_licence_state",
        "1 for the licence's current state, 0 for the others.",
        ["state"],
        () => {
          const now = licence();
          return LICENCE_STATES.map((state) => ({ labels: { state }, value: state === now ? 1 : 0 }));
        },
      );
    }
    if (leader) {
      r.gauge(
        "jobsight_leader",
        "1 when this replica holds the leader lease (runs the scheduled work), else 0.",
        [],
        () => one(leader() ? 1 : 0),
      );
    }
    if (model) {
      r.gauge(
        "jobsight_model_info",
        "The model being served (1) and the prediction mode.",
        ["version", "mode"],
        () => {
          const m = model();
          return [{ labels: { version: m.version ?? "none", mode: m.mode }, value: 1 }];
        },
      );
    }
  }

  /** Count one answered request. `operation` is the route table's operationId, or a fixed name. */
  observeRequest(operation: string, status: number, seconds: number): void {
    this.#requests.inc({ operation, status: String(status) });
    this.#durations.observe({ operation }, seconds);
  }

  /** Count what one OTLP export stored, refused and skipped. */
  observeOtlpExport(counts: OtlpExportCounts): void {
    this.#otlpSamples.inc({ outcome: "accepted" }, counts.accepted);
    this.#otlpSamples.inc({ outcome: "duplicate" }, counts.duplicates);
    this.#otlpRejected.inc(counts.rejected);
    for (const [reason, byName] of Object.entries(counts.skipped.byReason)) {
      for (const [name, points] of Object.entries(byName ?? {})) {
        if (!this.#skippedNames.has(name) && this.#skippedNames.size < MAX_SKIPPED_NAMES)
          this.#skippedNames.add(name);
        const metric = this.#skippedNames.has(name) ? name : "other";
        this.#otlpSkipped.inc({ reason, metric }, points);
      }
    }
  }

  /** The Prometheus text exposition; a source that throws leaves only its own metric out. */
  render(): Promise<string> {
    return this.#registry.render();
  }

  /** Content type of {@link render}'s text (the Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Stops the event-loop monitor. */
  close(): void {
    this.#loopDelay.disable();
  }
}
