/** Label names and values of one series. */
export type Labels = Readonly<Record<string, string>>;

type Series = { labels: Labels; value: number };

// Exposition format 0.0.4: label values escape backslash, double quote and newline.
function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function formatLabels(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

// Series are keyed by their labels in a fixed order, so {a,b} and {b,a} are one series.
function keyOf(labels: Labels): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

abstract class Metric {
  constructor(
    readonly name: string,
    readonly help: string,
  ) {
    if (!NAME.test(name)) throw new TypeError(`invalid metric name ${name}`);
  }
  abstract readonly type: "counter" | "gauge" | "histogram";
  abstract lines(): string[];
  header(): string[] {
    return [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`];
  }
}

/** A monotonically increasing count per label set. */
export class Counter extends Metric {
  readonly type = "counter";
  readonly #series = new Map<string, Series>();

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) throw new RangeError(`${this.name}: a counter only goes up (got ${by})`);
    const key = keyOf(labels);
    const series = this.#series.get(key);
    if (series) series.value += by;
    else this.#series.set(key, { labels: { ...labels }, value: by });
  }

  lines(): string[] {
    return [...this.#series.values()].map(
      (s) => `${this.name}${formatLabels(s.labels)} ${formatValue(s.value)}`,
    );
  }
}

/**
 * A value read when scraped, from a callback (memory in use, licence state, model version). Typed
 * `counter` when the value only goes up (CPU seconds), so PromQL's `rate()` applies.
 */
export class Gauge extends Metric {
  readonly type: "gauge" | "counter";
  constructor(
    name: string,
    help: string,
    private readonly read: () => readonly Series[],
    type: "gauge" | "counter" = "gauge",
  ) {
    super(name, help);
    this.type = type;
  }

  lines(): string[] {
    return this.read().map((s) => `${this.name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
  }
}

type HistogramSeries = { labels: Labels; counts: number[]; sum: number; count: number };

/** Observations counted into cumulative buckets, with their sum and count, per label set. */
export class Histogram extends Metric {
  readonly type = "histogram";
  readonly #series = new Map<string, HistogramSeries>();
  readonly #bounds: readonly number[];

  constructor(name: string, help: string, bounds: readonly number[]) {
    super(name, help);
    this.#bounds = [...bounds].sort((a, b) => a - b);
  }

  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: { ...labels }, counts: this.#bounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // Non-cumulative here; rendering accumulates, so observe stays O(buckets) without sorting.
    const i = this.#bounds.findIndex((bound) => value <= bound);
    if (i >= 0) series.counts[i]++;
    series.sum += value;
    series.count++;
  }

  lines(): string[] {
    const out: string[] = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += s.counts[i];
        out.push(`${this.name}_bucket${formatLabels(s.labels, ["le", formatValue(bound)])} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${formatLabels(s.labels, ["le", "+Inf"])} ${s.count}`);
      out.push(`${this.name}_sum${formatLabels(s.labels)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${formatLabels(s.labels)} ${s.count}`);
    }
    return out;
  }
}

/**
 * The server's own metrics in the Prometheus text exposition format (0.0.4), without a client
 * library: a handful of counters, gauges read at scrape time, and histograms.
 *
 * @example
 * ```ts
 * const registry = new MetricsRegistry();
 * const requests = registry.counter("jobsight_http_requests_total", "Requests answered");
 * requests.inc({ operation: "listJobs", status: "200" });
 * registry.render(); // "# HELP jobsight_http_requests_total …"
 * ```
 */
export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric>();

  counter(name: string, help: string): Counter {
    return this.#add(new Counter(name, help));
  }

  gauge(
    name: string,
    help: string,
    read: () => readonly Series[],
    type: "gauge" | "counter" = "gauge",
  ): Gauge {
    return this.#add(new Gauge(name, help, read, type));
  }

  histogram(name: string, help: string, bounds: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, bounds));
  }

  /** Every metric, in registration order; a gauge whose callback throws is left out, not fatal. */
  render(): string {
    const out: string[] = [];
    for (const metric of this.#metrics.values()) {
      let lines: string[];
      try {
        lines = metric.lines();
      } catch {
        continue;
      }
      out.push(...metric.header(), ...lines);
    }
    return `${out.join("\n")}\n`;
  }

  #add<M extends Metric>(metric: M): M {
    if (this.#metrics.has(metric.name)) throw new Error(`metric ${metric.name} is registered twice`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}
