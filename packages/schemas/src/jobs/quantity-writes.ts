import { parseQuantity } from "./quantity.js";
import { formatQuantityLike, type QuantityKind } from "./quantity-format.js";

/** The two maps of a container's `resources` a quantity is written in. */
export type QuantitySection = "requests" | "limits";

/**
 * One resource of one container as it is written: the raw `resources.requests[key]` and
 * `resources.limits[key]` values (a string or a number as YAML or JSON read it), `undefined` or
 * `null` where there is none.
 */
export type WrittenQuantities = { request?: unknown; limit?: unknown };

/** One quantity to write: which map, and the text to put under the resource's key. */
export type QuantityWrite = { section: QuantitySection; value: string };

const isWritten = (raw: unknown) => raw !== undefined && raw !== null;

/**
 * What to write so that a container gets `target` of a resource (bytes, cores, devices), keeping
 * it valid (request ≤ limit) and keeping its pattern: a request equal to its limit stays equal
 * (the pod keeps its QoS class); a limit alone stays alone; a limit is raised when the new request
 * would pass it, never lowered otherwise. GPUs are set in limits, and in requests too when they
 * are there (they must match). Each quantity keeps the unit it is written in when the new amount
 * is whole in it ({@link formatQuantityLike}). Nothing to write gives `[]`. The SDK's manifest
 * edits and the server's admission webhook both decide with this one function.
 *
 * @example
 * ```ts
 * planQuantityWrites("memory", { request: "8Gi", limit: "8Gi" }, 6 * 2 ** 30);
 * // [{ section: "requests", value: "6Gi" }, { section: "limits", value: "6Gi" }]
 * planQuantityWrites("cores", { request: "2", limit: "4" }, 3);
 * // [{ section: "requests", value: "3" }]
 * planQuantityWrites("gpus", {}, 2);
 * // [{ section: "limits", value: "2" }]
 * ```
 */
export function planQuantityWrites(
  kind: QuantityKind,
  written: WrittenQuantities,
  target: number,
): QuantityWrite[] {
  const hasRequest = isWritten(written.request);
  const hasLimit = isWritten(written.limit);
  const request = hasRequest ? parseQuantity(written.request) : undefined;
  const limit = hasLimit ? parseQuantity(written.limit) : undefined;
  const raw = (section: QuantitySection) => (section === "requests" ? written.request : written.limit);
  const amountLike = (original: unknown) => parseQuantity(formatQuantityLike(original, target, kind))!;
  // The amount the container gets, as written in the quantity that decides it. A request and its
  // equal limit get one amount: the larger, when one of their units cannot carry `target` exactly.
  const pair = kind !== "gpus" && hasRequest && hasLimit && request === limit;
  // GPUs are decided by their limit, the others by their request (each defaults to the other).
  const [first, second] =
    kind === "gpus" ? [written.limit, written.request] : [written.request, written.limit];
  const decides = isWritten(first) ? first : second;
  const amount = pair
    ? Math.max(amountLike(written.request), amountLike(written.limit))
    : amountLike(decides);
  const write = (section: QuantitySection): QuantityWrite => ({
    section,
    value: formatQuantityLike(raw(section), amount, kind),
  });
  if (kind === "gpus") {
    if (amount === 0 && !hasLimit && !hasRequest) return [];
    if (limit === amount && (!hasRequest || request === amount)) return [];
    return hasRequest ? [write("limits"), write("requests")] : [write("limits")];
  }
  if (hasRequest && hasLimit) {
    if (pair) return request === amount ? [] : [write("requests"), write("limits")];
    const writes = request === amount ? [] : [write("requests")];
    if (limit !== undefined && limit < amount) writes.push(write("limits"));
    return writes;
  }
  if (hasLimit) return limit === amount ? [] : [write("limits")];
  return request === amount ? [] : [write("requests")];
}
