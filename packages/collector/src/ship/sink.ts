import type { IngestRejection, JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas/light";

/** One batch for the backend: all of one kind, with a key that stays the same on every resend. */
export type ShipBatch =
  | { kind: "usage"; idempotencyKey: string; samples: UsageSample[] }
  | { kind: "event"; idempotencyKey: string; events: NodeEvent[] }
  | { kind: "job"; idempotencyKey: string; records: JobRecord[] };

/**
 * What the backend answered for a batch it stored: the items it refused for good while storing the
 * others (partial success), each offending field with the item's position in the batch.
 */
export type SinkResult = { rejected?: IngestRejection[] };

/**
 * Where the shipper delivers batches: the data plane's REST ingest ({@link HttpJsonSink}), the
 * OTLP exporter through `@jobsight/otel-bridge`, or a test double. `send` resolves only once the
 * backend has stored the batch (all of it, or all but the items named in `rejected`, which must
 * not be sent again); it throws a `SinkError` whose `retryable` says whether to try again.
 */
export type Sink = {
  // biome-ignore lint/suspicious/noConfusingVoidType: a sink that resolves with nothing stored it all (sinks written before partial success do).
  send(batch: ShipBatch, signal: AbortSignal): Promise<SinkResult | void>;
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

/** The property of a batch (and of its JSON body) that holds its items. */
export const ITEMS_KEY = { usage: "samples", event: "events", job: "records" } as const;

/** `batch` with only the items at `indexes` (in that order), under the same key. */
export function batchWith(batch: ShipBatch, indexes: readonly number[]): ShipBatch {
  switch (batch.kind) {
    case "usage":
      return { ...batch, samples: indexes.map((i) => batch.samples[i]) };
    case "event":
      return { ...batch, events: indexes.map((i) => batch.events[i]) };
    case "job":
      return { ...batch, records: indexes.map((i) => batch.records[i]) };
  }
}
