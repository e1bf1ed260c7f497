import type { Prediction } from "@jobsight/schemas";
import { BufferPool } from "../../data-plane/copy/buffer-pool.js";
import { Utf8Writer } from "../../data-plane/copy/utf8-writer.js";

/**
 * The JSON of answers after their ids, as UTF-8 ({@link AnswerJson.tail}), by answer, for answers
 * that leave without theirs ({@link rememberTail}). The part after the id is the same for every
 * request for the same job in a batch: encoded once, then copied as bytes wherever the answer
 * goes. Answers are not changed once made, so a text never goes stale; one that is not known is
 * serialised as usual.
 */
const tails = new WeakMap<Prediction, Uint8Array>();

/** Where batch answers are written, each buffer reused once its answer is sent (`release`). */
const BATCH_BUFFERS = new BufferPool({ maxPooledBytes: 16 * 1024 * 1024 });

/** The parts of an answer that every answer of one batch shares. */
export type AnswerCommon = Pick<Prediction, "createdAt" | "mode" | "modelVersion" | "shadowUntil" | "notice">;

/**
 * Writes the JSON of a batch's answers, exactly as `JSON.stringify` writes an answer built in
 * the order of {@link Prediction} (id, createdAt, mode, modelVersion, cluster, user, resources,
 * then shadowUntil and notice when set), from the text of its resources.
 *
 * @example
 * ```ts
 * const json = new AnswerJson(common);
 * rememberTail(answer, json.tail(answer.cluster, answer.user, JSON.stringify(answer.resources)));
 * answerText(answer) === JSON.stringify(answer); // true
 * ```
 */
export class AnswerJson {
  readonly #head: string;
  readonly #tail: string;

  constructor(common: AnswerCommon) {
    this.#head = `,"createdAt":${JSON.stringify(common.createdAt)},"mode":${JSON.stringify(common.mode)},"modelVersion":${JSON.stringify(common.modelVersion)},"cluster":`;
    let tail = "";
    if (common.shadowUntil !== undefined) tail += `,"shadowUntil":${JSON.stringify(common.shadowUntil)}`;
    if (common.notice !== undefined) tail += `,"notice":${JSON.stringify(common.notice)}`;
    this.#tail = `${tail}}`;
  }

  /** The UTF-8 JSON after the id of this batch's answers for `cluster` and `user` with these resources. */
  tail(cluster: string, user: string, resourcesJson: string): Buffer {
    return Buffer.from(
      `${this.#head}${JSON.stringify(cluster)},"user":${JSON.stringify(user)},"resources":${resourcesJson}${this.#tail}`,
      "utf8",
    );
  }
}

/**
 * Keeps that `answer` serialises to its id followed by `tail` (from {@link AnswerJson.tail}), for
 * {@link answerText} and {@link writeAnswer} called without it. A batch hands each answer's tail
 * along instead: a weak map entry per answer cost more than the copy it saves.
 */
export function rememberTail(answer: Prediction, tail: Uint8Array): void {
  tails.set(answer, tail);
}

function idHead(answer: Pick<Prediction, "id">): string {
  return `{"id":${JSON.stringify(answer.id)}`;
}

/**
 * The JSON text of an answer: its id and `tail`, the bytes written when it was made (by default
 * those {@link rememberTail} kept), else the answer serialised now. With a tail, only the id of
 * `answer` is read.
 */
export function answerText(answer: Pick<Prediction, "id">, tail = tails.get(answer as Prediction)): string {
  return tail
    ? idHead(answer) + Buffer.from(tail.buffer, tail.byteOffset, tail.length).toString("utf8")
    : JSON.stringify(answer);
}

/**
 * Appends the JSON of an answer to `out`: its id, then `tail`, the bytes written when it was made
 * (by default those {@link rememberTail} kept), or else the answer serialised now.
 *
 * @example
 * ```ts
 * const out = new Utf8Writer(2048);
 * writeAnswer(out, answer); // out.bytes() is JSON.stringify(answer) as UTF-8
 * ```
 */
export function writeAnswer(out: Utf8Writer, answer: Prediction, tail = tails.get(answer)): void {
  if (!tail) {
    out.write(JSON.stringify(answer));
    return;
  }
  out.write(idHead(answer));
  out.writeBytes(tail);
}

/** About how long one answer's JSON is (five resources with their evidence), to size buffers. */
const ANSWER_BYTES = 1600;

/**
 * The JSON of a batch answer (`PredictionBatch`) as UTF-8 bytes, each answer written into one
 * buffer as soon as its text is at hand, rather than joined into one long string and encoded
 * afterwards (see docs/performance.md). With a `pool`, the buffer comes from it: the caller gives
 * it back (`release()` of {@link finish}'s writer) once sent.
 *
 * @example
 * ```ts
 * const batch = new BatchAnswerJson(requests.length, pool);
 * for (const answer of answers) batch.add(answer);
 * const out = batch.finish();
 * reply.raw.once("finish", () => out.release());
 * return out.bytes();
 * ```
 */
export class BatchAnswerJson {
  readonly #out: Utf8Writer;
  #count = 0;

  /**
   * @param expected answers the batch will hold, to size the buffer.
   * @param pool where the buffer comes from. @default the module's pool of batch buffers
   */
  constructor(expected: number, pool: BufferPool = BATCH_BUFFERS) {
    // Sized for ASCII answers of the usual length, which they almost always are; grown otherwise.
    this.#out = new Utf8Writer(32 + expected * ANSWER_BYTES, pool);
    this.#out.write(`{"predictions":[`);
  }

  /** Appends an answer; `tail` as for {@link writeAnswer}. */
  add(answer: Prediction, tail?: Uint8Array): void {
    if (this.#count++ > 0) this.#out.write(",");
    writeAnswer(this.#out, answer, tail ?? tails.get(answer));
  }

  /** The batch's JSON, complete; nothing more may be added. */
  finish(): Utf8Writer {
    this.#out.write("]}");
    return this.#out;
  }
}
