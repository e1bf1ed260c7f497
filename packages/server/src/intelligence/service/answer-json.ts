import type { Prediction } from "@jobsight/schemas";
import type { BufferPool } from "../../data-plane/buffer-pool.js";
import { Utf8Writer } from "../../data-plane/utf8-writer.js";

/**
 * The JSON text of the answers this process made, by answer. A batch answer is a megabyte and a
 * half of JSON per thousand predictions: written once here from pieces already serialised (the
 * resources, which the record needs as JSON too), a reply only joins them. Answers are not
 * changed once made, so a text never goes stale; one that is not here is serialised as usual.
 */
const texts = new WeakMap<Prediction, string>();

/** The parts of an answer that every answer of one batch shares. */
export type AnswerCommon = Pick<Prediction, "createdAt" | "mode" | "modelVersion" | "shadowUntil" | "notice">;

/**
 * Writes the JSON text of a batch's answers, exactly as `JSON.stringify` writes an answer built
 * in the order of {@link Prediction} (id, createdAt, mode, modelVersion, cluster, user, resources,
 * then shadowUntil and notice when set), from the text of its resources.
 *
 * @example
 * ```ts
 * const json = new AnswerJson(common);
 * json.remember(answer, JSON.stringify(answer.resources));
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

  /** Keeps the text of `answer`, whose resources serialise to `resourcesJson`. */
  remember(answer: Prediction, resourcesJson: string): void {
    texts.set(
      answer,
      `{"id":${JSON.stringify(answer.id)}${this.#head}${JSON.stringify(answer.cluster)},"user":${JSON.stringify(answer.user)},"resources":${resourcesJson}${this.#tail}`,
    );
  }
}

/** The JSON text of an answer: the one written when it was made, else serialised now. */
export function answerText(answer: Prediction): string {
  return texts.get(answer) ?? JSON.stringify(answer);
}

/** About how long one answer's JSON is (five resources with their evidence), to size buffers. */
const ANSWER_BYTES = 1600;

/**
 * The JSON of a batch answer (`PredictionBatch`) as UTF-8 bytes, each answer written into one
 * buffer as soon as its text is at hand (so a batch's answers need not be kept until the end):
 * joining a megabyte-sized string first and encoding it afterwards costs several times as much
 * (the join, its length in bytes, then the encoding). With a `pool`, the buffer comes from it:
 * the caller gives it back (`release()` of {@link finish}'s writer) once sent.
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

  /** @param expected answers the batch will hold, to size the buffer. */
  constructor(expected: number, pool?: BufferPool) {
    // Sized for ASCII answers of the usual length, which they almost always are; grown otherwise.
    this.#out = new Utf8Writer(32 + expected * ANSWER_BYTES, pool);
    this.#out.write(`{"predictions":[`);
  }

  add(answer: Prediction): void {
    this.#out.write(this.#count++ === 0 ? answerText(answer) : `,${answerText(answer)}`);
  }

  /** The batch's JSON, complete; nothing more may be added. */
  finish(): Utf8Writer {
    this.#out.write("]}");
    return this.#out;
  }
}
