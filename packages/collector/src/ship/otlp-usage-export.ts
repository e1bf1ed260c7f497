import {
  type EncodeObservationsOptions,
  type ExportMetricsServiceRequest,
  encodeObservations as encodeWith,
  ObservationEncodeError,
  rejectedSampleKey,
} from "@jobsight/otel-bridge";
import type { IngestRejection, UsageSample } from "@jobsight/schemas/light";
import type { OtlpExportAnswer } from "./otlp-metrics-client.js";

/** A usage batch as one OTLP export: what is sent, and what never can be. */
export type UsageExport = {
  /** The export of every sample that encodes; `undefined` when none does. */
  request: ExportMetricsServiceRequest | undefined;
  /** Data points in `request`. */
  points: number;
  /** Each sample sent, with its place in the batch. */
  sent: { index: number; sample: UsageSample }[];
  /** The samples that fail the UsageSample schema, so are not sent (resending cannot fix them). */
  invalid: IngestRejection[];
};

const points = (n: number) => `${n} data point${n === 1 ? "" : "s"}`;

function rejection(index: number, message: string, code: string): IngestRejection {
  return { index, path: `/samples/${index}`, message, code };
}

function pointsIn(request: ExportMetricsServiceRequest): number {
  let n = 0;
  for (const rm of request.resourceMetrics)
    for (const sm of rm.scopeMetrics)
      for (const m of sm.metrics) n += (m.gauge ?? m.sum)?.dataPoints.length ?? 0;
  return n;
}

/**
 * Encodes a usage batch as one OTLP export (with the semantic-convention names, or with
 * `names: "legacy"` the 0.1 `jobsight.*` ones). A sample that fails the schema would fail the whole
 * encoding, and so block the spool for good: it is left out and named in `invalid` instead.
 *
 * @example
 * ```ts
 * const usage = prepareUsageExport(batch.samples);
 * if (usage.request) answer = await client.export(usage.request, signal);
 * ```
 */
export function prepareUsageExport(
  samples: readonly UsageSample[],
  options: Pick<EncodeObservationsOptions, "names"> = {},
): UsageExport {
  const encodeObservations = (list: readonly UsageSample[]) => encodeWith(list, options);
  let indexes = samples.map((_, i) => i);
  const invalid: IngestRejection[] = [];
  let request: ExportMetricsServiceRequest | undefined;
  try {
    request = encodeObservations(samples);
  } catch (error) {
    if (!(error instanceof ObservationEncodeError)) throw error;
    // Rare: find every bad sample, one at a time, for its own message.
    indexes = indexes.filter((i) => {
      try {
        encodeObservations([samples[i]]);
        return true;
      } catch (e) {
        if (!(e instanceof ObservationEncodeError)) throw e;
        invalid.push(rejection(i, e.message.replace(/^samples\[0\]/, "sample"), "VALIDATION_FAILED"));
        return false;
      }
    });
    request = indexes.length > 0 ? encodeObservations(indexes.map((i) => samples[i])) : undefined;
  }
  return {
    request,
    points: request ? pointsIn(request) : 0,
    sent: indexes.map((index) => ({ index, sample: samples[index] })),
    invalid,
  };
}

/**
 * The samples of an accepted export that the receiver rejected data points of, by their place in
 * the batch. OTLP's partial success gives only a count: a Jobsight receiver also names the
 * samples, and those are the answer. Points it leaves unnamed (a receiver that names none, an
 * OpenTelemetry Collector on the way, more than its answer holds) cannot be placed, so every
 * sample not named is set aside with them: some of those were stored, but none is lost. When
 * every point was rejected, so was every sample, named or not.
 *
 * @example
 * ```ts
 * const rejected = rejectedSamplesOf(usage, await client.export(usage.request, signal));
 * ```
 */
export function rejectedSamplesOf(usage: UsageExport, answer: OtlpExportAnswer): IngestRejection[] {
  const partial = answer.response.partialSuccess;
  const count = Number(partial?.rejectedDataPoints ?? 0n);
  if (!partial || count <= 0) return [];
  const summary = partial.errorMessage || `${points(count)} rejected`;
  const code = "OTLP_PARTIAL_SUCCESS";
  if (count >= usage.points) {
    return usage.sent.map((s) => rejection(s.index, `every data point was rejected: ${summary}`, code));
  }
  const named = new Map((answer.rejectedSamples ?? []).map((r) => [r.key, r]));
  const rejected: IngestRejection[] = [];
  const unnamed: number[] = [];
  const placedKeys = new Set<string>();
  let placed = 0;
  for (const s of usage.sent) {
    // Hashed only here, for the rare export that lost points.
    const key = named.size > 0 ? rejectedSampleKey(s.sample) : "";
    const found = named.get(key);
    if (!found) {
      unnamed.push(s.index);
      continue;
    }
    rejected.push(rejection(s.index, `${points(found.points)} rejected: ${found.reason}`, code));
    // A sample sent twice in one batch is named once: its points count once.
    if (!placedKeys.has(key)) placed += found.points;
    placedKeys.add(key);
  }
  if (placed >= count) return rejected;
  const why = `the receiver rejected ${points(count - placed)} of this export without naming their samples, so this sample may hold some (kept, though it may have been stored): ${summary}`;
  for (const index of unnamed) rejected.push(rejection(index, why, code));
  return rejected.sort((a, b) => a.index - b.index);
}
