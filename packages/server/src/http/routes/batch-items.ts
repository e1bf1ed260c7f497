import {
  type ApiRoute,
  compileValidator,
  type FieldError,
  type IngestRejection,
  type Validator,
} from "@jobsight/schemas";
import { type TObject, type TSchema, Type } from "@sinclair/typebox";
import { type ErrorCode, JobsightError } from "../../errors.js";
import { unstorableTextErrors } from "./unstorable-text.js";

type Body = Record<string, unknown>;

/** A batch with its refused items taken out. */
export type SplitBatch = {
  /** The body with only the items that can be stored, in their order. */
  body: Body;
  /** Every offending field of the refused items, in item order. */
  rejected: IngestRejection[];
  /** For each item kept, its position in the batch as sent. */
  kept: number[];
};

const REFUSED: ErrorCode = "VALIDATION_FAILED";

const isArraySchema = (s: unknown): s is TSchema & { items: TSchema } =>
  typeof s === "object" && s !== null && (s as { type?: unknown }).type === "array";

/**
 * The items of an ingest batch, judged one by one: the routes answering `IngestResult` (job
 * records, usage samples, node events) store the valid items of a batch and name every offending
 * field of the others in `rejected`, as OTLP partial success does, instead of refusing the whole
 * batch for one bad record. The batch's envelope (its other fields, the array's length) is still
 * all or nothing, and so is a batch none of whose items is valid: both stay a 400.
 *
 * @example
 * ```ts
 * const items = BatchItems.of(route); // undefined for routes that do not take batches
 * const split = items?.split(body); // { body: { records: [good] }, rejected: [{ index: 1, path: "/records/1/jobId", … }], kept: [0] }
 * ```
 */
export class BatchItems {
  private readonly envelope: Validator<TSchema>;
  private readonly item: Validator<TSchema>;

  private constructor(
    /** The body's array property holding the items (`records`, `samples`, `events`). */
    readonly key: string,
    body: TObject,
    items: TSchema,
    private readonly whole: Validator<TSchema>,
  ) {
    const { $id: _id, ...rest } = body;
    const list = body.properties[key];
    // The body as it is, with any item: what is wrong outside the items refuses the batch.
    this.envelope = compileValidator(
      { ...rest, properties: { ...body.properties, [key]: { ...list, items: Type.Unknown() } } } as TSchema,
      `${String(body.$id ?? "batch")} envelope`,
    );
    this.item = compileValidator(items);
  }

  /** The batch items of `route`, when it takes a batch judged item by item. */
  static of(route: ApiRoute, whole: Validator<TSchema>): BatchItems | undefined {
    const body = route.body as TObject | undefined;
    if (route.response?.$id !== "IngestResult" || !body?.properties) return undefined;
    const arrays = Object.keys(body.properties).filter((k) => isArraySchema(body.properties[k]));
    if (arrays.length !== 1) return undefined;
    const items = (body.properties[arrays[0]] as unknown as { items: TSchema }).items;
    return new BatchItems(arrays[0], body, items, whole);
  }

  /**
   * `body` without its invalid items, and why each was refused; `undefined` when the batch is to
   * be refused whole (its envelope is wrong, or no item is valid) or when every item is valid.
   */
  split(body: unknown): SplitBatch | undefined {
    if (!this.envelope.check(body)) return undefined;
    const batch = body as Body;
    const items = batch[this.key] as unknown[];
    if (unstorableTextErrors({ ...batch, [this.key]: [] }).length > 0) return undefined;
    const rejected: IngestRejection[] = [];
    const kept: number[] = [];
    items.forEach((item, index) => {
      const at = `/${this.key}/${index}`;
      const checked = this.item.validate(item);
      const errors: FieldError[] = [
        ...unstorableTextErrors(item, at),
        ...(checked.ok ? [] : checked.errors.map((e) => ({ ...e, path: `${at}${e.path}` }))),
      ];
      if (errors.length === 0) kept.push(index);
      for (const e of errors) rejected.push({ index, path: e.path, message: e.message, code: REFUSED });
    });
    if (kept.length === 0 || rejected.length === 0) return undefined;
    const next = { ...batch, [this.key]: kept.map((i) => items[i]) };
    // Checked whole again: a rule across items (none today) must not be skipped by the split.
    if (!this.whole.check(next)) return undefined;
    return { body: next, rejected, kept };
  }

  /**
   * `error` with the item positions of its fields (e.g. a 403 naming `/records/0/cluster` of the
   * kept items) turned back into positions in the batch as sent.
   */
  inBatchPositions(error: unknown, split: SplitBatch): unknown {
    if (!(error instanceof JobsightError) || !error.errors) return error;
    const prefix = `/${this.key}/`;
    const errors = error.errors.map((e) => {
      if (!e.path.startsWith(prefix)) return e;
      const rest = e.path.slice(prefix.length);
      const digits = /^\d+/.exec(rest)?.[0];
      const sent = digits === undefined ? undefined : split.kept[Number(digits)];
      return sent === undefined ? e : { ...e, path: `${prefix}${sent}${rest.slice(digits!.length)}` };
    });
    return new JobsightError(error.code, error.message, {
      errors,
      retryAfterSeconds: error.retryAfterSeconds,
      cause: error,
    });
  }
}
