import type { RejectedSample } from "../decode/decoded-observations.js";
import { type UsageSampleIdentity, usageSampleKey } from "../mapping/sample-key.js";

/**
 * The gRPC trailing-metadata key under which a Jobsight receiver names, next to an OTLP partial
 * success, the samples whose data points it rejected. OTLP's `partial_success` holds only a
 * count and an English `error_message`; this lets a Jobsight collector set aside exactly those
 * samples. Other OTLP clients ignore it, and the response message stays standard.
 */
export const REJECTED_SAMPLES_METADATA_KEY = "jobsight-rejected-samples-bin";

// Some 150 samples; base64 on the wire makes it 5.5 KiB, inside the 8 KiB of metadata gRPC
// implementations (and the proxies in front of them) accept by default.
const DEFAULT_MAX_BYTES = 4 * 1024;
const MAX_REASON_CHARS = 200;
// 64 bits of the sha256 key: a batch of thousands of samples has odds of ~1e-12 of two sharing one.
const KEY_CHARS = 16;

type Wire = { reasons: string[]; samples: [key: string, points: number, reason: number][] };

/**
 * How {@link REJECTED_SAMPLES_METADATA_KEY} names a sample: the first 16 hex characters of its
 * `usageSampleKey`.
 *
 * @example
 * ```ts
 * const named = new Set(decodeRejectedSamples(value)?.map((s) => s.key));
 * const wasRejected = named.has(rejectedSampleKey(sample));
 * ```
 */
export function rejectedSampleKey(sample: UsageSampleIdentity): string {
  return usageSampleKey(sample).slice(0, KEY_CHARS);
}

/**
 * Encodes rejected samples for {@link REJECTED_SAMPLES_METADATA_KEY}: UTF-8 JSON
 * `{"reasons":[…],"samples":[[key, points, reasonIndex], …]}`, each key cut to what
 * {@link rejectedSampleKey} gives. Samples that do not fit in `maxBytes` (4 KiB by default) are
 * left out: a reader sees that their points are missing from the sum and treats them as unnamed.
 *
 * @example
 * ```ts
 * const trailer = new grpc.Metadata();
 * trailer.set(REJECTED_SAMPLES_METADATA_KEY, encodeRejectedSamples(decoded.rejectedSamples));
 * callback(null, response, trailer);
 * ```
 */
export function encodeRejectedSamples(
  samples: readonly RejectedSample[],
  maxBytes = DEFAULT_MAX_BYTES,
): Buffer {
  const wire: Wire = { reasons: [], samples: [] };
  const reasonIndex = new Map<string, number>();
  let size = 27; // {"reasons":[],"samples":[]}
  for (const s of samples) {
    const reason = s.reason.slice(0, MAX_REASON_CHARS);
    let index = reasonIndex.get(reason);
    const added = index === undefined ? Buffer.byteLength(JSON.stringify(reason)) + 1 : 0;
    const key = s.key.slice(0, KEY_CHARS);
    const entry = JSON.stringify([key, s.points, index ?? wire.reasons.length]).length + 1;
    if (size + added + entry > maxBytes) break;
    if (index === undefined) {
      index = wire.reasons.length;
      reasonIndex.set(reason, index);
      wire.reasons.push(reason);
    }
    wire.samples.push([key, s.points, index]);
    size += added + entry;
  }
  return Buffer.from(JSON.stringify(wire));
}

/**
 * Reads a {@link REJECTED_SAMPLES_METADATA_KEY} value (keys as {@link rejectedSampleKey} makes
 * them); `undefined` when it is absent or not in
 * the form {@link encodeRejectedSamples} writes (the receiver named nothing, then).
 *
 * @example
 * ```ts
 * call.on("status", (status) => {
 *   const named = decodeRejectedSamples(status.metadata.get(REJECTED_SAMPLES_METADATA_KEY)[0]);
 * });
 * ```
 */
export function decodeRejectedSamples(value: Buffer | string | undefined): RejectedSample[] | undefined {
  if (!Buffer.isBuffer(value)) return undefined;
  let wire: Partial<Wire>;
  try {
    wire = JSON.parse(value.toString("utf8")) as Partial<Wire>;
  } catch {
    return undefined;
  }
  if (!Array.isArray(wire?.reasons) || !Array.isArray(wire.samples)) return undefined;
  const out: RejectedSample[] = [];
  for (const item of wire.samples) {
    if (!Array.isArray(item)) return undefined;
    const [key, points, reason] = item as unknown[];
    if (typeof key !== "string" || !Number.isSafeInteger(points) || (points as number) <= 0) return undefined;
    const text = typeof reason === "number" ? wire.reasons[reason] : undefined;
    out.push({ key, points: points as number, reason: typeof text === "string" ? text : "rejected" });
  }
  return out;
}
