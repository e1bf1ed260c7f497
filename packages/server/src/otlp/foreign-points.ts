import {
  type ExportMetricsServiceRequest,
  type KeyValue,
  type NumberDataPoint,
  ObservationAttributes,
  OtlpDataPointFlags,
  type ScalarAttribute,
  scalarOf,
} from "@jobsight/otel-bridge";

/** Points taken out of a request because they name a cluster the caller may not write. */
export type ForeignPoints = {
  /** Points removed (points flagged "no recorded value" are removed without being counted). */
  count: number;
  /** Removed points per cluster they named. */
  byCluster: Map<string, number>;
};

const NO_VALUE = OtlpDataPointFlags.NO_RECORDED_VALUE_MASK;
const CLUSTER = ObservationAttributes.cluster;

/** The last scalar `jobsight.cluster` of a list (later keys win, as in the decoder), if any. */
function clusterIn(list: readonly KeyValue[] | undefined): ScalarAttribute | undefined {
  let found: ScalarAttribute | undefined;
  if (!list) return found;
  for (const kv of list) {
    if (kv.key !== CLUSTER) continue;
    const scalar = scalarOf(kv.value);
    if (scalar !== undefined) found = scalar;
  }
  return found;
}

/** The cluster id the decoder would read from this value; `undefined` when it would read none. */
function clusterText(value: ScalarAttribute | undefined): string | undefined {
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Removes, in place, the gauge and sum points whose `jobsight.cluster` (looked up on the point,
 * then the scope, then the resource, like `decodeObservations` does) is another cluster than
 * `own`, and counts them for the partial-success answer. Points without a cluster are left for
 * the decoder to reject with its own reason; other point types are left for it to reject too.
 *
 * @example
 * ```ts
 * const foreign = removeForeignPoints(request, principal.cluster); // foreign.count points dropped
 * ```
 */
export function removeForeignPoints(request: ExportMetricsServiceRequest, own: string): ForeignPoints {
  const result: ForeignPoints = { count: 0, byCluster: new Map() };
  for (const rm of request.resourceMetrics) {
    const resourceCluster = clusterIn(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics) {
      const scopeCluster = clusterIn(sm.scope?.attributes) ?? resourceCluster;
      for (const metric of sm.metrics) {
        const data = metric.gauge ?? metric.sum;
        if (!data) continue;
        let kept: NumberDataPoint[] | undefined;
        data.dataPoints.forEach((point, i) => {
          const cluster = clusterText(clusterIn(point.attributes) ?? scopeCluster);
          const foreign = cluster !== undefined && cluster !== own;
          if (foreign && !kept) kept = data.dataPoints.slice(0, i);
          if (!foreign) kept?.push(point);
          else if ((point.flags & NO_VALUE) === 0) {
            result.count++;
            result.byCluster.set(cluster, (result.byCluster.get(cluster) ?? 0) + 1);
          }
        });
        if (kept) data.dataPoints = kept;
      }
    }
  }
  return result;
}
