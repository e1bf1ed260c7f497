import type { IngestRejection } from "@jobsight/schemas/light";
import { SinkError } from "../errors.js";
import { batchSize, type ShipBatch, type Sink, type SinkResult } from "./sink.js";

/** Options of {@link HttpJsonSink}. */
export type HttpJsonSinkOptions = {
  /** Base URL of the data plane, e.g. `https://jobsight.example.org`. */
  url: string;
  /** Bearer token of a collector-scoped API token. @default none */
  token?: string;
  /** Time limit of one request. @default 30000 */
  timeoutMs?: number;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
};

const paths = { usage: "/v1/usage", event: "/v1/events", job: "/v1/jobs" } as const;

function body(batch: ShipBatch): unknown {
  switch (batch.kind) {
    case "usage":
      return { idempotencyKey: batch.idempotencyKey, samples: batch.samples };
    case "event":
      return { events: batch.events };
    case "job":
      return { records: batch.records };
  }
}

/**
 * Delivers batches as JSON to the data plane's REST ingest: `POST /v1/usage` (`UsageBatch`),
 * `/v1/events` (`NodeEventBatch`), `/v1/jobs` (`JobRecordBatch`), with the bearer token and the
 * batch's idempotency key (in the body where the contract has it, and as an `Idempotency-Key`
 * header). 408, 429, 5xx, 401/403 and network errors are retryable; other 4xx are not. A 200
 * whose `IngestResult` lists `rejected` items (the data plane stored the others) resolves with
 * them, so the shipper sets aside just those.
 *
 * @example
 * ```ts
 * const sink = new HttpJsonSink({ url: "https://jobsight.example.org", token: process.env.JOBSIGHT_TOKEN });
 * ```
 */
export class HttpJsonSink implements Sink {
  private readonly base: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(options: HttpJsonSinkOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  async send(batch: ShipBatch, signal: AbortSignal): Promise<SinkResult | undefined> {
    if (batchSize(batch) === 0) return undefined;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "idempotency-key": batch.idempotencyKey,
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let response: Response;
    try {
      response = await this.fetchFn(`${this.base}${paths[batch.kind]}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body(batch)),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      });
    } catch (error) {
      throw new SinkError(`cannot reach ${this.base}: ${(error as Error).message}`, true, undefined, {
        cause: error,
      });
    }
    const text = await response.text().catch(() => "");
    if (response.ok) return { rejected: rejectedIn(text, batchSize(batch)) };
    const s = response.status;
    const retryable = s === 408 || s === 429 || s >= 500 || s === 401 || s === 403;
    throw new SinkError(`${paths[batch.kind]} answered ${s}: ${text.slice(0, 500)}`, retryable, s);
  }
}

/**
 * The refused items an ingest answer names (`IngestResult.rejected`), those whose index lies in
 * the batch; none when the answer has none or is not JSON (the batch was stored all the same).
 */
function rejectedIn(text: string, items: number): IngestRejection[] {
  let answer: { rejected?: unknown };
  try {
    answer = JSON.parse(text) as { rejected?: unknown };
  } catch {
    return [];
  }
  if (!Array.isArray(answer?.rejected)) return [];
  return answer.rejected.filter(
    (r): r is IngestRejection =>
      typeof r === "object" && r !== null && Number.isSafeInteger(r.index) && r.index >= 0 && r.index < items,
  );
}
