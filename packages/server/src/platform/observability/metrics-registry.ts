import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** One series of a metric read at scrape time: its labels and its value now. */
export type Series<L extends string = string> = { labels: Partial<Record<L, string>>; value: number };

/**
 * The server's own metrics on a prom-client `Registry` of their own: every metric made here is
 * registered in this registry alone, never in prom-client's global default one, so two servers in
 * one process (tests) neither share counts nor collide on names.
 *
 * Beside prom-client's counters and histograms it offers metrics read at scrape time from a
 * callback, and a rendering that leaves out a metric whose callback throws instead of failing
 * the whole scrape.
 *
 * @example
 * ```ts
 * const registry = new MetricsRegistry();
 * const requests = registry.counter("jobsight_http_requests_total", "Requests answered", ["operation", "status"]);
 * requests.inc({ operation: "listJobs", status: "200" });
 * await registry.render(); // "# HELP jobsight_http_requests_total …"
 * ```
 */
export class MetricsRegistry {
  readonly #registry = new Registry();

  /** Content type of the exposition {@link render} writes (the Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** A monotonically increasing count per label set; the label names are the only ones allowed. */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.#registry] });
  }

  /** Observations counted into cumulative buckets (`le` upper bounds), with their sum and count. */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): Histogram<L> {
    // prom-client counts an observation into the first bucket it fits and accumulates in the
    // order given, so the bounds must ascend.
    const ascending = [...buckets].sort((a, b) => a - b);
    return new Histogram({ name, help, labelNames, buckets: ascending, registers: [this.#registry] });
  }

  /**
   * A value read when scraped (memory in use, licence state, model version): each scrape shows
   * exactly the series `read` returns. Typed `counter` when the value only goes up (CPU seconds),
   * so PromQL's `rate()` applies.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => readonly Series<L>[],
    type: "gauge" | "counter" = "gauge",
  ): void {
    const registers = [this.#registry];
    // Read before resetting: a callback that throws leaves the metric out of this scrape (see
    // render) rather than half-written.
    if (type === "counter") {
      const counter: Counter<L> = new Counter({
        name,
        help,
        labelNames,
        registers,
        collect: () => {
          const series = read();
          counter.reset();
          for (const s of series) counter.inc(s.labels, s.value);
        },
      });
    } else {
      const gauge: Gauge<L> = new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect: () => {
          const series = read();
          gauge.reset();
          for (const s of series) gauge.set(s.labels, s.value);
        },
      });
    }
  }

  /**
   * Every metric in registration order, in prom-client's text exposition (families separated by
   * a blank line). Unlike `Registry.metrics()`, a metric whose scrape-time callback throws is left
   * out instead of failing the scrape: telemetry must not take the metrics endpoint down.
   */
  async render(): Promise<string> {
    const registry = this.#registry;
    const families = await Promise.allSettled(
      registry.getMetricsAsArray().map((metric) => registry.getSingleMetricAsString(metric.name)),
    );
    const texts = families.flatMap((family) => (family.status === "fulfilled" ? [family.value] : []));
    return `${texts.join("\n\n")}\n`;
  }
}
