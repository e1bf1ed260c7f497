import type protobuf from "protobufjs";
import { OtlpDecodeError } from "../errors.js";
import { MAX_PROTOBUF_DEPTH } from "./protobuf-validate.js";

export const WIRE_VARINT = 0;
export const WIRE_I64 = 1;
export const WIRE_LEN = 2;
const WIRE_SGROUP = 3;
const WIRE_EGROUP = 4;
export const WIRE_I32 = 5;
/** Strings up to this many bytes are decoded once per body (see `string`). */
const MAX_CACHED_STRING = 64;
const STRING_SLOTS = 512;
const SLOT_SHIFT = 32 - 9;

const varintScalars = new Set(["int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool"]);
const i64Scalars = new Set(["fixed64", "sfixed64", "double"]);
const i32Scalars = new Set(["fixed32", "sfixed32", "float"]);

/** What the reader checks a field against: its name (for errors), wire type and whether it may come packed. */
export type FieldSpec = { name: string; wire: number; packable: boolean };
/** Field specs of one message type, by field number. */
export type FieldTable = ReadonlyArray<FieldSpec | undefined>;

/**
 * The field table of a protobufjs message type: names, numbers and wire types come from the one
 * descriptor (`otlp-proto.ts`), so the fast reader cannot drift from it.
 */
export function fieldTable(type: protobuf.Type): FieldTable {
  const table: (FieldSpec | undefined)[] = [];
  for (const field of type.fieldsArray) {
    field.resolve();
    let wire = WIRE_LEN;
    if (field.resolvedType && !("fields" in field.resolvedType))
      wire = WIRE_VARINT; // enum
    else if (!field.resolvedType && varintScalars.has(field.type)) wire = WIRE_VARINT;
    else if (!field.resolvedType && i64Scalars.has(field.type)) wire = WIRE_I64;
    else if (!field.resolvedType && i32Scalars.has(field.type)) wire = WIRE_I32;
    table[field.id] = { name: field.name, wire, packable: field.repeated && wire !== WIRE_LEN };
  }
  return table;
}

/**
 * A cursor over protobuf bytes that checks as it reads: every value must fit inside the message
 * that holds it, wire types must match the field, nesting is bounded. The path of the message
 * being read is kept as a stack of (field, index) pairs and only turned into text for an error,
 * so a valid body costs no path strings at all.
 */
export class ProtobufReader {
  pos = 0;
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #text: Buffer;
  // A direct-mapped cache of decoded short strings: where their bytes are, and the string.
  readonly #stringAt = new Int32Array(STRING_SLOTS);
  readonly #stringLength = new Int32Array(STRING_SLOTS).fill(-1);
  readonly #stringText: string[] = new Array(STRING_SLOTS).fill("");
  readonly #names: string[] = [];
  readonly #indexes: number[] = [];
  #depth = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.#bytes.length;
  }

  #path(): string | undefined {
    if (this.#depth === 0) return undefined;
    const parts: string[] = [];
    for (let i = 0; i < this.#depth; i++) {
      const index = this.#indexes[i];
      parts.push(index >= 0 ? `${this.#names[i]}[${index}]` : this.#names[i]);
    }
    return parts.join(".");
  }

  /** An error at the message being read. */
  fail(
    code: "OTLP_TRUNCATED" | "OTLP_MALFORMED_PROTOBUF" | "OTLP_INVALID_FIELD" | "OTLP_NESTING_TOO_DEEP",
    message: string,
  ): never {
    throw new OtlpDecodeError(code, message, { path: this.#path() });
  }

  #need(n: number, end: number): void {
    if (this.pos + n > end) this.fail("OTLP_TRUNCATED", `needs ${n} bytes, only ${end - this.pos} remain`);
  }

  /** A varint as a number: exact up to 2^35 (tags, lengths); 32-bit fields take `>>> 0` or `| 0` of it. */
  varint(end: number): number {
    const bytes = this.#bytes;
    let result = 0;
    for (let shift = 0, i = 0; i < 10; i++, shift += 7) {
      if (this.pos >= end) this.fail("OTLP_TRUNCATED", "varint runs past the end");
      const byte = bytes[this.pos++];
      if (shift < 32) result += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return result;
    }
    return this.fail("OTLP_MALFORMED_PROTOBUF", "varint longer than 10 bytes");
  }

  /** A 64-bit varint as a bigint, signed (`int64`) or not (`uint64`). */
  varint64(end: number, signed: boolean): bigint {
    const bytes = this.#bytes;
    let lo = 0;
    let hi = 0;
    for (let shift = 0, i = 0; i < 10; i++, shift += 7) {
      if (this.pos >= end) this.fail("OTLP_TRUNCATED", "varint runs past the end");
      const byte = bytes[this.pos++];
      const bits = byte & 0x7f;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (byte < 0x80) {
        if (hi === 0 && lo >= 0) return BigInt(lo);
        const value = (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
        return signed ? BigInt.asIntN(64, value) : value;
      }
    }
    return this.fail("OTLP_MALFORMED_PROTOBUF", "varint longer than 10 bytes");
  }

  fixed64(end: number, signed: boolean): bigint {
    this.#need(8, end);
    const view = this.#view;
    const pos = this.pos;
    this.pos += 8;
    // Start times are mostly 0 ("unknown"): no new BigInt for those.
    if (view.getUint32(pos, true) === 0 && view.getUint32(pos + 4, true) === 0) return 0n;
    return signed ? view.getBigInt64(pos, true) : view.getBigUint64(pos, true);
  }

  /**
   * An sfixed64 as a number when it is a safe integer, else `undefined` (the caller then reads
   * it again as a BigInt): most integer points are small, and a BigInt each would be garbage.
   */
  sfixed64Safe(end: number): number | undefined {
    this.#need(8, end);
    const view = this.#view;
    const lo = view.getUint32(this.pos, true);
    const hi = view.getInt32(this.pos + 4, true);
    this.pos += 8;
    // Exact whenever |hi| < 2^21, which covers every safe integer.
    if (hi < -0x200000 || hi >= 0x200000) return undefined;
    const value = hi * 4_294_967_296 + lo;
    return Number.isSafeInteger(value) ? value : undefined;
  }

  /** Skips a fixed64 value (checked to be there) without making a BigInt of it. */
  skip64(end: number): void {
    this.#need(8, end);
    this.pos += 8;
  }

  double(end: number): number {
    this.#need(8, end);
    const value = this.#view.getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  /** The end of a length-delimited value starting here (its length read), checked against `end`. */
  delimited(end: number): number {
    const length = this.varint(end);
    if (this.pos + length > end) {
      this.fail("OTLP_TRUNCATED", `needs ${length} bytes, only ${end - this.pos} remain`);
    }
    return this.pos + length;
  }

  string(end: number): string {
    const stop = this.delimited(end);
    const start = this.pos;
    this.pos = stop;
    const length = stop - start;
    if (length === 0) return "";
    if (length > MAX_CACHED_STRING) return this.#text.toString("utf8", start, stop);
    // Attribute keys and most values (job ids, user names) repeat on every point: decode each
    // distinct short string once per body and hand out the same string after that.
    const bytes = this.#bytes;
    const view = this.#view;
    // The slot comes from every byte, so names alike but for a byte (cn001…cn064) do not evict
    // each other; four bytes a step, high bits folded down so every byte reaches the slot bits.
    let mixed = 0x811c9dc5 ^ length;
    let i = start;
    for (; i + 4 <= stop; i += 4) {
      mixed = Math.imul(mixed ^ view.getUint32(i, true), 0x01000193);
      mixed ^= mixed >>> 15;
    }
    for (; i < stop; i++) mixed = Math.imul(mixed ^ bytes[i], 0x01000193);
    const slot = Math.imul(mixed, 0x9e3779b1) >>> SLOT_SHIFT;
    const at = this.#stringAt[slot];
    if (this.#stringLength[slot] === length && this.#sameBytes(at, start, length))
      return this.#stringText[slot];
    const text = this.#text.toString("utf8", start, stop);
    this.#stringAt[slot] = start;
    this.#stringLength[slot] = length;
    this.#stringText[slot] = text;
    return text;
  }

  #sameBytes(at: number, start: number, length: number): boolean {
    if (at === start) return true;
    const view = this.#view;
    let i = 0;
    for (; i + 4 <= length; i += 4)
      if (view.getInt32(at + i, true) !== view.getInt32(start + i, true)) return false;
    const bytes = this.#bytes;
    for (; i < length; i++) if (bytes[at + i] !== bytes[start + i]) return false;
    return true;
  }

  /** A copy, so the result does not pin the (possibly pooled) request buffer. */
  bytes(end: number): Uint8Array {
    const stop = this.delimited(end);
    const out = new Uint8Array(this.#bytes.subarray(this.pos, stop));
    this.pos = stop;
    return out;
  }

  /**
   * The next field's number, once its wire type is checked against `table`; unknown fields are
   * skipped whole and give 0. `packed` is set when a repeated scalar came packed.
   */
  field(table: FieldTable, end: number): number {
    const at = this.pos;
    const tag = this.varint(end);
    const id = Math.floor(tag / 8);
    const wire = tag & 7;
    if (id === 0) this.fail("OTLP_MALFORMED_PROTOBUF", `field number 0 at offset ${at}`);
    if (wire === 6 || wire === 7)
      this.fail("OTLP_MALFORMED_PROTOBUF", `invalid wire type ${wire} at offset ${this.pos}`);
    const spec = table[id];
    if (!spec) {
      this.#skip(wire, end, 0);
      return 0;
    }
    this.packed = spec.packable && wire === WIRE_LEN;
    if (wire !== spec.wire && !this.packed) {
      this.fail(
        "OTLP_MALFORMED_PROTOBUF",
        `field ${spec.name} (${id}) has wire type ${wire}, expected ${spec.wire}`,
      );
    }
    return id;
  }

  /** Whether the field last returned by {@link field} came packed. */
  packed = false;

  #skip(wire: number, end: number, groups: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint(end);
        return;
      case WIRE_I64:
        this.#need(8, end);
        this.pos += 8;
        return;
      case WIRE_I32:
        this.#need(4, end);
        this.pos += 4;
        return;
      case WIRE_LEN:
        this.pos = this.delimited(end);
        return;
      case WIRE_SGROUP:
        if (this.#depth + groups > MAX_PROTOBUF_DEPTH) {
          throw new OtlpDecodeError("OTLP_NESTING_TOO_DEEP", "groups nested too deeply", {
            path: this.#path(),
          });
        }
        for (;;) {
          const tag = this.varint(end);
          if ((tag & 7) === WIRE_EGROUP) return;
          this.#skip(tag & 7, end, groups + 1);
        }
      default:
        this.fail("OTLP_MALFORMED_PROTOBUF", `invalid wire type ${wire} at offset ${this.pos}`);
    }
  }

  /**
   * Reads a nested message with `read`, inside its own bounds and one level deeper in the path
   * (`index` -1 for a field that is not repeated).
   */
  message<T>(end: number, name: string, index: number, read: (r: ProtobufReader, end: number) => T): T {
    const length = this.varint(end);
    const depth = this.#depth;
    this.#names[depth] = name;
    this.#indexes[depth] = index;
    this.#depth = depth + 1;
    if (this.pos + length > end)
      this.fail("OTLP_TRUNCATED", `message of ${length} bytes overruns its parent`);
    if (this.#depth > MAX_PROTOBUF_DEPTH) {
      throw new OtlpDecodeError(
        "OTLP_NESTING_TOO_DEEP",
        `messages nested deeper than ${MAX_PROTOBUF_DEPTH}`,
        {
          path: this.#path(),
        },
      );
    }
    const value = read(this, this.pos + length);
    this.#depth = depth;
    return value;
  }

  /** Repeated scalars, packed or not: calls `one` for each value of the field just read. */
  repeated(end: number, one: (end: number) => void): void {
    if (!this.packed) {
      one(end);
      return;
    }
    const stop = this.delimited(end);
    while (this.pos < stop) one(stop);
  }
}
