import { parentPort } from "node:worker_threads";
import { OtlpDecodeError, type OtlpHttpEncoding } from "@jobsight/otel-bridge";
import { BufferPool } from "../copy/buffer-pool.js";
import type { StorageFlavour } from "../storage/migration-files.js";
import { decodeBatch } from "./decode-batch.js";

/** A body to decode, its bytes transferred to the worker. */
export type DecodeRequest = {
  id: number;
  body: Uint8Array;
  encoding: OtlpHttpEncoding;
  cluster: string;
  /** Keep node-wide points that name only their node for attribution (`DecodeObservationsOptions.hostOnly`). */
  hostOnly: boolean;
  /** Keep container points that name only their container for attribution (`DecodeObservationsOptions.containerOnly`). */
  containerOnly: boolean;
  /** The sample store's flavour, which decides what the batch is prepared with. */
  flavour: StorageFlavour;
};

/**
 * A batch's COPY text buffer handed back once stored, for the next batch to be written into: a
 * fresh megabyte per batch was a page fault per 4 KiB to touch (see `BufferPool`).
 */
export type GiveBackRequest = { give: ArrayBuffer };

/** The answer: the decoded batch (its COPY text transferred back), or the error it raised. */
export type DecodeAnswer =
  | { id: number; ok: true; batch: ReturnType<typeof decodeBatch> }
  | {
      id: number;
      ok: false;
      decode?: { code: ConstructorParameters<typeof OtlpDecodeError>[0]; message: string };
      message: string;
      stack?: string;
    };

// The decode worker: takes bodies one at a time from the pool (see decode-pool.ts) and never
// throws out of its handler, so one bad body cannot end the thread.
const buffers = new BufferPool();

parentPort?.on("message", (request: DecodeRequest | GiveBackRequest) => {
  if ("give" in request) {
    buffers.give(Buffer.from(request.give));
    return;
  }
  let answer: DecodeAnswer;
  const transfer: ArrayBuffer[] = [];
  try {
    const batch = decodeBatch(
      request.body,
      request.encoding,
      { cluster: request.cluster, hostOnly: request.hostOnly, containerOnly: request.containerOnly },
      { flavour: request.flavour, buffers },
    );
    answer = { id: request.id, ok: true, batch };
    transfer.push(batch.prepared.copyText.buffer as ArrayBuffer);
  } catch (error) {
    const e = error as Error;
    answer =
      error instanceof OtlpDecodeError
        ? {
            id: request.id,
            ok: false,
            decode: {
              code: error.code as ConstructorParameters<typeof OtlpDecodeError>[0],
              message: error.message,
            },
            message: e.message,
          }
        : { id: request.id, ok: false, message: String(e?.message ?? error), stack: e?.stack };
  }
  parentPort?.postMessage(answer, transfer);
});
