import {
  type ExportMetricsServiceRequest,
  type KeyValue,
  LegacySeriesAttributes,
  ObservationAttributes,
  type ObservationRejections,
  SeriesAttributes,
} from "@jobsight/otel-bridge";

// Only the attributes that become a sample's text (identity, user, series): others are ignored,
// the sender's service name and instance too.
const { serviceName: _name, serviceInstanceId: _instance, ...stored } = ObservationAttributes;
// The 0.1 series keys too: a collector on `--otlp-names legacy` still sends them.
const STORED_KEYS = new Set<string>([
  ...Object.values(stored),
  ...Object.values(SeriesAttributes),
  ...Object.values(LegacySeriesAttributes),
]);
// With the `u` flag a surrogate pair is one code point, so only unpaired surrogates match.
const LONE_SURROGATE = /\p{Surrogate}/u;
const SURROGATE_ESCAPE = [Buffer.from("\\ud"), Buffer.from("\\uD")];

/** The first stored attribute whose string value holds an unpaired surrogate, or `undefined`. */
function brokenKey(attributes: readonly KeyValue[] | undefined): string | undefined {
  for (const kv of attributes ?? []) {
    const value = kv.value as { stringValue?: unknown };
    if (
      STORED_KEYS.has(kv.key) &&
      typeof value?.stringValue === "string" &&
      LONE_SURROGATE.test(value.stringValue)
    )
      return kv.key;
  }
  return undefined;
}

/**
 * Takes out of an OTLP/JSON export every gauge and sum point whose job, node, user or series
 * attributes (its own, its scope's or its resource's) hold an unpaired UTF-16 surrogate, and
 * counts them as rejected by reason. JSON can carry such a string (`"\ud800"`), PostgreSQL text
 * cannot: left in, it would fail the whole batch's write with a 500. (Protobuf strings are UTF-8
 * bytes, which decode with replacement characters, never lone surrogates.)
 *
 * @example
 * ```ts
 * const request = decodeExportMetricsRequestJson(body);
 * const dropped = dropLoneSurrogatePoints(request, body); // { count: 3, reasons: { "invalid attribute host.name: …": 3 } }
 * ```
 */
export function dropLoneSurrogatePoints(
  request: ExportMetricsServiceRequest,
  jsonText: Uint8Array,
): ObservationRejections {
  const rejected: ObservationRejections = { count: 0, reasons: {} };
  // JSON carries a lone surrogate only as an escape: a body without one is spared the walk.
  const text = Buffer.from(jsonText.buffer, jsonText.byteOffset, jsonText.byteLength);
  if (!SURROGATE_ESCAPE.some((e) => text.includes(e))) return rejected;
  for (const rm of request.resourceMetrics) {
    const resourceKey = brokenKey(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics) {
      const scopeKey = resourceKey ?? brokenKey(sm.scope?.attributes);
      for (const metric of sm.metrics) {
        const data = metric.gauge ?? metric.sum;
        if (!data) continue;
        data.dataPoints = data.dataPoints.filter((point) => {
          const key = scopeKey ?? brokenKey(point.attributes);
          if (key === undefined) return true;
          const reason = `invalid attribute ${key}: unpaired UTF-16 surrogate (not storable text)`;
          rejected.reasons[reason] = (rejected.reasons[reason] ?? 0) + 1;
          rejected.count++;
          return false;
        });
      }
    }
  }
  return rejected;
}

/** Both rejections together, as one {@link ObservationRejections}. */
export function mergeRejections(a: ObservationRejections, b: ObservationRejections): ObservationRejections {
  if (b.count === 0) return a;
  const reasons = { ...a.reasons };
  for (const [reason, n] of Object.entries(b.reasons)) reasons[reason] = (reasons[reason] ?? 0) + n;
  return { count: a.count + b.count, reasons };
}
