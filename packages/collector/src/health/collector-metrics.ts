import type { Registry } from "prom-client";

/** What the collector's health report holds (see `startCollector`); any part may be missing. */
export type CollectorReport = Record<string, unknown> & { status: string };

type Read = (report: CollectorReport) => number | undefined;

const STATUSES = ["ok", "degraded", "failing"] as const;

function number(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function part(report: CollectorReport, key: string): Record<string, unknown> {
  const value = report[key];
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

// name, help, type, and how to read it from the report; a figure the mode lacks is left out.
const FIGURES: ReadonlyArray<[string, string, "gauge" | "counter", Read]> = [
  [
    "jobsight_collector_lag_seconds",
    "Age of the oldest record waiting to be shipped.",
    "gauge",
    (r) => number(r.lagSeconds),
  ],
  [
    "jobsight_collector_spool_bytes",
    "Bytes in the on-disk spool.",
    "gauge",
    (r) => number(part(r, "spool").bytes),
  ],
  [
    "jobsight_collector_spool_unacked_records",
    "Records in the spool not yet acknowledged by the server.",
    "gauge",
    (r) => number(part(r, "spool").unacked),
  ],
  [
    "jobsight_collector_spool_dropped_samples_total",
    "Usage samples dropped under the spool's size cap or a full disk.",
    "counter",
    (r) => number(part(r, "spool").droppedSamples),
  ],
  [
    "jobsight_collector_shipped_batches_total",
    "Batches the server acknowledged.",
    "counter",
    (r) => number(part(r, "shipper").sentBatches),
  ],
  [
    "jobsight_collector_shipped_records_total",
    "Records the server acknowledged.",
    "counter",
    (r) => number(part(r, "shipper").sentRecords),
  ],
  [
    "jobsight_collector_rejected_records_total",
    "Records the server refused for good (kept aside in the spool).",
    "counter",
    (r) => number(part(r, "shipper").rejectedRecords),
  ],
  [
    "jobsight_collector_ship_failures_total",
    "Shipping attempts that failed and will be retried.",
    "counter",
    (r) => number(part(r, "shipper").failures),
  ],
  [
    "jobsight_collector_rounds_total",
    "Collection rounds completed.",
    "counter",
    (r) => number(part(r, "collector").rounds),
  ],
  [
    "jobsight_collector_failed_rounds_total",
    "Collection rounds that failed (and ran again next tick).",
    "counter",
    (r) => number(part(r, "collector").failedRounds),
  ],
  [
    "jobsight_collector_jobs",
    "Jobs seen in the last collection round.",
    "gauge",
    (r) => number(part(r, "collector").jobs),
  ],
];

/**
 * The collector's health figures in the Prometheus text format, on a prom-client `Registry` of
 * its own (never the global one), read from the health report at each scrape. prom-client is
 * loaded on first use, so a collector that serves no health port does not carry it.
 *
 * @example
 * ```ts
 * const metrics = await CollectorMetrics.create(() => collector.report());
 * res.setHeader("content-type", metrics.contentType).end(await metrics.render());
 * ```
 */
export class CollectorMetrics {
  private constructor(private readonly registry: Registry) {}

  /** Metrics over `report`, which is called once per scrape. */
  static async create(report: () => CollectorReport): Promise<CollectorMetrics> {
    const { Counter, Gauge, Registry } = await import("prom-client");
    const registry = new Registry();
    // One report per scrape, shared by every metric: collect callbacks run one after another.
    let current: CollectorReport | undefined;
    const read = () => {
      current ??= report();
      return current;
    };
    const registers = [registry];
    new Gauge({
      name: "jobsight_collector_status",
      help: "1 for the collector's current health status (ok, degraded, failing), 0 for the others.",
      labelNames: ["status"],
      registers,
      collect() {
        current = undefined;
        const now = read().status;
        for (const status of STATUSES) this.set({ status }, status === now ? 1 : 0);
      },
    });
    for (const [name, help, type, figure] of FIGURES) {
      const Metric = type === "counter" ? Counter : Gauge;
      const metric: InstanceType<typeof Gauge> | InstanceType<typeof Counter> = new Metric({
        name,
        help,
        registers,
        collect() {
          const value = figure(read());
          metric.reset();
          if (value === undefined) return;
          if (metric instanceof Gauge) metric.set(value);
          else metric.inc(value);
        },
      });
    }
    return new CollectorMetrics(registry);
  }

  /** Content type of {@link render}'s text (the Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition; a report that throws fails this scrape only. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
