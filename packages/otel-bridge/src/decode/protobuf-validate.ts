import type protobuf from "protobufjs";
import { OtlpDecodeError } from "../errors.js";

/** Deepest message nesting accepted; OTLP needs ~10 levels plus AnyValue arrays/kvlists. */
export const MAX_PROTOBUF_DEPTH = 64;

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_SGROUP = 3;
const WIRE_EGROUP = 4;
const WIRE_I32 = 5;

const varintScalars = new Set(["int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool"]);
const i64Scalars = new Set(["fixed64", "sfixed64", "double"]);
const i32Scalars = new Set(["fixed32", "sfixed32", "float"]);

interface PathNode {
  parent: PathNode | undefined;
  name: string;
}

function render(node: PathNode | undefined): string {
  const parts: string[] = [];
  for (let n = node; n; n = n.parent) parts.push(n.name);
  return parts.reverse().join(".").replace(/\.\[/g, "[");
}

/** The wire type a field's scalar values use when not packed. */
function scalarWireType(field: protobuf.Field): number {
  if (field.resolvedType && "fields" in field.resolvedType) return WIRE_LEN;
  if (field.resolvedType) return WIRE_VARINT; // enum
  if (varintScalars.has(field.type)) return WIRE_VARINT;
  if (i64Scalars.has(field.type)) return WIRE_I64;
  if (i32Scalars.has(field.type)) return WIRE_I32;
  return WIRE_LEN; // string, bytes
}

class Cursor {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
  ) {
    this.pos = start;
  }

  varint(end: number, at: PathNode | undefined): number {
    let result = 0;
    for (let shift = 0, i = 0; i < 10; i++, shift += 7) {
      if (this.pos >= end)
        throw new OtlpDecodeError("OTLP_TRUNCATED", "varint runs past the end", { path: render(at) });
      const byte = this.buf[this.pos++];
      // Only the low 32 bits matter here (tags, lengths); the rest is skipped, not read.
      if (shift < 32) result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new OtlpDecodeError("OTLP_MALFORMED_PROTOBUF", "varint longer than 10 bytes", { path: render(at) });
  }

  skip(n: number, end: number, at: PathNode | undefined): void {
    if (this.pos + n > end) {
      throw new OtlpDecodeError("OTLP_TRUNCATED", `needs ${n} bytes, only ${end - this.pos} remain`, {
        path: render(at),
      });
    }
    this.pos += n;
  }
}

function skipValue(cur: Cursor, wire: number, end: number, at: PathNode | undefined, depth: number): void {
  switch (wire) {
    case WIRE_VARINT:
      cur.varint(end, at);
      return;
    case WIRE_I64:
      cur.skip(8, end, at);
      return;
    case WIRE_I32:
      cur.skip(4, end, at);
      return;
    case WIRE_LEN:
      cur.skip(cur.varint(end, at), end, at);
      return;
    case WIRE_SGROUP: {
      if (depth > MAX_PROTOBUF_DEPTH) {
        throw new OtlpDecodeError("OTLP_NESTING_TOO_DEEP", "groups nested too deeply", { path: render(at) });
      }
      for (;;) {
        const tag = cur.varint(end, at);
        if ((tag & 7) === WIRE_EGROUP) return;
        skipValue(cur, tag & 7, end, at, depth + 1);
      }
    }
    default:
      throw new OtlpDecodeError("OTLP_MALFORMED_PROTOBUF", `invalid wire type ${wire} at offset ${cur.pos}`, {
        path: render(at),
      });
  }
}

function validateMessage(
  cur: Cursor,
  end: number,
  type: protobuf.Type,
  at: PathNode | undefined,
  depth: number,
): void {
  if (depth > MAX_PROTOBUF_DEPTH) {
    throw new OtlpDecodeError("OTLP_NESTING_TOO_DEEP", `messages nested deeper than ${MAX_PROTOBUF_DEPTH}`, {
      path: render(at),
    });
  }
  let counts: Map<number, number> | undefined;
  while (cur.pos < end) {
    const tag = cur.varint(end, at);
    const id = Math.floor(tag / 8);
    const wire = tag & 7;
    if (id === 0) {
      throw new OtlpDecodeError("OTLP_MALFORMED_PROTOBUF", `field number 0 at offset ${cur.pos}`, {
        path: render(at),
      });
    }
    if (wire === 6 || wire === 7) {
      throw new OtlpDecodeError("OTLP_MALFORMED_PROTOBUF", `invalid wire type ${wire} at offset ${cur.pos}`, {
        path: render(at),
      });
    }
    const field = type.fieldsById[id];
    if (!field) {
      // Unknown fields are legal (newer senders); skip them whole.
      skipValue(cur, wire, end, at, depth);
      continue;
    }
    const expected = scalarWireType(field);
    const packedOk = field.repeated && expected !== WIRE_LEN && wire === WIRE_LEN;
    if (wire !== expected && !packedOk) {
      throw new OtlpDecodeError(
        "OTLP_MALFORMED_PROTOBUF",
        `field ${field.name} (${field.id}) has wire type ${wire}, expected ${expected}`,
        { path: render(at) },
      );
    }
    const isMessage = expected === WIRE_LEN && field.resolvedType !== null && "fields" in field.resolvedType;
    if (!isMessage) {
      skipValue(cur, wire, end, at, depth);
      continue;
    }
    const length = cur.varint(end, at);
    const childEnd = cur.pos + length;
    let name = field.name;
    if (field.repeated) {
      counts ??= new Map();
      const index = counts.get(id) ?? 0;
      counts.set(id, index + 1);
      name = `${field.name}[${index}]`;
    }
    const child: PathNode = { parent: at, name };
    if (childEnd > end) {
      throw new OtlpDecodeError("OTLP_TRUNCATED", `message of ${length} bytes overruns its parent`, {
        path: render(child),
      });
    }
    validateMessage(cur, childEnd, field.resolvedType as protobuf.Type, child, depth + 1);
  }
}

/**
 * Walks protobuf bytes against a message type without building objects, so a bad body fails
 * with a precise code and path (protobufjs alone reports only "index out of range" and
 * silently mis-reads fields sent with the wrong wire type).
 *
 * @example
 * ```ts
 * validateProtobuf(body, otlpMessageTypes.exportRequest); // throws OtlpDecodeError
 * ```
 */
export function validateProtobuf(bytes: Uint8Array, type: protobuf.Type): void {
  validateMessage(new Cursor(bytes, 0), bytes.length, type, undefined, 0);
}
