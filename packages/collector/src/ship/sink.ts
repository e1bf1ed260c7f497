import type { JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas/light";

/** One batch for the backend: all of one kind, with a key that stays the same on every resend. */
export type ShipBatch =
  | { kind: "usage"; idempotencyKey: string; samples: UsageSample[] }
  | { kind: "event"; idempotencyKey: string; events: NodeEvent[] }
  | { kind: "job"; idempotencyKey: string; records: JobRecord[] };

/**
 * Where the shipper delivers batches: the data plane's REST ingest ({@link HttpJsonSink}), the
 * OTLP exporter through `@jobsight/otel-bridge`, or a test double. `send` resolves only once the
 * backend has stored the batch; it throws a `SinkError` whose `retryable` says whether to try again.
 */
export type Sink = {
  send(batch: ShipBatch, signal: AbortSignal): Promise<void>;
  close?(): Promise<void>;
};

/** Number of items in a batch. */
export function batchSize(batch: ShipBatch): number {
  return batch.kind === "usage"
    ? batch.samples.length
    : batch.kind === "event"
      ? batch.events.length
      : batch.records.length;
}
