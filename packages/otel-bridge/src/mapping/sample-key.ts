import { createHash } from "node:crypto";
import type { UsageSample } from "@jobsight/schemas";
import { ObservationEncodeError } from "../errors.js";
import { rfc3339ToUnixNano } from "../otlp/unix-nano.js";

/** The fields that make a sample the same sample, whatever its values. */
export type UsageSampleIdentity = Pick<UsageSample, "cluster" | "jobId" | "node" | "step" | "time">;

/**
 * The deterministic idempotency key of a sample: sha256 (hex) of cluster, job id, node, step and
 * the timestamp in Unix nanoseconds. A resent sample gets the same key, so storage can keep it
 * once; `…:00Z` and `…:00.000Z` are the same instant and give the same key.
 *
 * @throws {ObservationEncodeError} when `time` is not an RFC 3339 timestamp.
 * @example
 * ```ts
 * usageSampleKey({ cluster: "hpc1", jobId: "4242", node: "gpu07", time: "2026-12-02T16:30:00Z" });
 * // "5c0e…" (64 hex characters)
 * ```
 */
export function usageSampleKey(sample: UsageSampleIdentity): string {
  const nanos = rfc3339ToUnixNano(sample.time);
  if (nanos === undefined)
    throw new ObservationEncodeError(`time ${JSON.stringify(sample.time)} is not RFC 3339`);
  return usageSampleKeyAt(sample, nanos);
}

/** {@link usageSampleKey} with the time already in Unix nanoseconds. */
export function usageSampleKeyAt(sample: Omit<UsageSampleIdentity, "time">, unixNano: bigint): string {
  // NUL cannot occur in any of the fields, so the joined text is unambiguous; a missing step
  // is the empty string, which a real step (minLength 1) never is.
  const text = [sample.cluster, sample.jobId, sample.node, sample.step ?? "", unixNano.toString()].join(
    "\u0000",
  );
  return createHash("sha256").update(text).digest("hex");
}
