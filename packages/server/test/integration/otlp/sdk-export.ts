import { type DiagLogger, DiagLogLevel, diag, ValueType } from "@opentelemetry/api";
import type { ExportResult } from "@opentelemetry/core";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, MetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";

/** A reader that collects only when asked, so a test exports exactly one collection. */
class OnDemandReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/**
 * Observable instruments to make, by name: a counter (cumulative Sum) or a gauge, observing
 * `value` once with `attributes`, or once per attribute set of `series`.
 */
export type Gauges = Record<
  string,
  {
    unit: string;
    value: number;
    counter?: boolean;
    attributes?: Record<string, string>;
    series?: Record<string, string>[];
  }
>;

/**
 * One collection of `gauges` under `resource` by the real OpenTelemetry SDK, exported once by
 * `exporter`: what a site's OpenTelemetry Collector or instrumented program sends.
 *
 * @example
 * ```ts
 * await exportOnce(exporter, { "k8s.pod.uid": uid }, { "k8s.pod.memory.usage": { unit: "By", value: 1 } });
 * ```
 */
export async function exportOnce(
  exporter: PushMetricExporter,
  resource: Record<string, string | number>,
  gauges: Gauges,
): Promise<ExportResult> {
  const reader = new OnDemandReader();
  const provider = new MeterProvider({ resource: resourceFromAttributes(resource), readers: [reader] });
  const meter = provider.getMeter("site-otel-collector");
  for (const [name, g] of Object.entries(gauges)) {
    const valueType = Number.isInteger(g.value) && g.unit !== "s" ? ValueType.INT : ValueType.DOUBLE;
    const instrument = g.counter
      ? meter.createObservableCounter(name, { unit: g.unit, valueType })
      : meter.createObservableGauge(name, { unit: g.unit, valueType });
    const sets = g.series ?? [g.attributes ?? {}];
    instrument.addCallback((result) => {
      for (const attributes of sets) result.observe(g.value, attributes);
    });
  }
  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length > 0) throw new AggregateError(errors, "the SDK failed to collect");
  const result = await new Promise<ExportResult>((resolve) => exporter.export(resourceMetrics, resolve));
  await provider.shutdown();
  return result;
}

/**
 * Runs `work` with the OpenTelemetry diagnostic logger catching warnings and errors (how the real
 * exporters report a partial success), and returns what they said beside the result.
 */
export async function withDiagWarnings<T>(
  work: () => Promise<T>,
): Promise<{ result: T; warnings: string[] }> {
  const warnings: string[] = [];
  const push = (...args: unknown[]) => warnings.push(args.map(String).join(" "));
  const logger: DiagLogger = { error: push, warn: push, info: () => {}, debug: () => {}, verbose: () => {} };
  diag.setLogger(logger, DiagLogLevel.WARN);
  try {
    return { result: await work(), warnings };
  } finally {
    diag.disable();
  }
}
