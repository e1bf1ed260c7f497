import { OtlpDecodeError } from "../errors.js";

/**
 * Readers for one field value each. They accept what protobufjs `toObject` yields (64-bit
 * integers as decimal strings, bytes as Uint8Array) and what the OTLP/JSON encoding allows
 * (64-bit integers as strings or numbers, doubles as numbers or "NaN"/"Infinity", enums as
 * integers, ids in hex, other bytes in base64). `null` and absence both mean the default.
 */

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const DECIMAL = /^-?\d+$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function invalid(path: string, message: string): OtlpDecodeError {
  return new OtlpDecodeError("OTLP_INVALID_FIELD", message, { path });
}

function describe(raw: unknown): string {
  if (raw === null) return "null";
  if (Array.isArray(raw)) return "an array";
  return typeof raw === "string" ? `the string ${JSON.stringify(raw.slice(0, 40))}` : `a ${typeof raw}`;
}

/** A nested message: a plain object, or `undefined` when absent. */
export function readObject(raw: unknown, path: string): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw) || raw instanceof Uint8Array) {
    throw invalid(path, `expected an object, got ${describe(raw)}`);
  }
  return raw as Record<string, unknown>;
}

/** A repeated field: an array (empty when absent). */
export function readArray(raw: unknown, path: string): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid(path, `expected an array, got ${describe(raw)}`);
  return raw;
}

export function readString(raw: unknown, path: string): string {
  if (raw === undefined || raw === null) return "";
  if (typeof raw !== "string") throw invalid(path, `expected a string, got ${describe(raw)}`);
  return raw;
}

export function readBool(raw: unknown, path: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw !== "boolean") throw invalid(path, `expected a boolean, got ${describe(raw)}`);
  return raw;
}

function readInteger(raw: unknown, path: string, min: number, max: number): number {
  if (raw === undefined || raw === null) return 0;
  const value = typeof raw === "string" && DECIMAL.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw invalid(path, `expected an integer, got ${describe(raw)}`);
  }
  if (value < min || value > max) throw invalid(path, `${value} is outside [${min}, ${max}]`);
  return value;
}

export function readUint32(raw: unknown, path: string): number {
  return readInteger(raw, path, 0, 0xffffffff);
}

export function readInt32(raw: unknown, path: string): number {
  return readInteger(raw, path, -0x80000000, 0x7fffffff);
}

/** An enum: an integer per OTLP/JSON; the value name is tolerated too. */
export function readEnum(raw: unknown, path: string, names: Readonly<Record<string, number>>): number {
  if (typeof raw === "string" && !DECIMAL.test(raw)) {
    const value = names[raw];
    if (value === undefined) throw invalid(path, `unknown enum value ${JSON.stringify(raw)}`);
    return value;
  }
  return readInt32(raw, path);
}

/** The `long` objects protobufjs decodes 64-bit fields into. */
interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

function isLong(raw: unknown): raw is LongLike {
  return (
    typeof raw === "object" &&
    raw !== null &&
    typeof (raw as LongLike).low === "number" &&
    typeof (raw as LongLike).high === "number"
  );
}

function longToBigInt(long: LongLike): bigint {
  if (long.high === 0 && long.low >= 0) return BigInt(long.low);
  const bits = (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0);
  return long.unsigned ? bits : BigInt.asIntN(64, bits);
}

function readInt64Raw(raw: unknown, path: string, min: bigint, max: bigint): bigint {
  if (raw === undefined || raw === null) return 0n;
  let value: bigint;
  if (isLong(raw)) value = longToBigInt(raw);
  else if (typeof raw === "string" && DECIMAL.test(raw)) value = BigInt(raw);
  else if (typeof raw === "number" && Number.isInteger(raw)) value = BigInt(raw);
  else throw invalid(path, `expected a 64-bit integer (decimal string or integer), got ${describe(raw)}`);
  if (value < min || value > max) throw invalid(path, `${value} does not fit the 64-bit field`);
  return value;
}

/** uint64/fixed64 (timestamps, counts). */
export function readUint64(raw: unknown, path: string): bigint {
  return readInt64Raw(raw, path, 0n, U64_MAX);
}

/** int64/sfixed64 (`as_int`, `int_value`). */
export function readInt64(raw: unknown, path: string): bigint {
  return readInt64Raw(raw, path, I64_MIN, I64_MAX);
}

/** double: a number, or one of the proto3 JSON strings "NaN", "Infinity", "-Infinity" or a numeral. */
export function readDouble(raw: unknown, path: string): number {
  if (raw === undefined || raw === null) return 0;
  if (typeof raw === "number") return raw;
  if (typeof raw === "string") {
    if (raw === "NaN") return Number.NaN;
    if (raw === "Infinity") return Number.POSITIVE_INFINITY;
    if (raw === "-Infinity") return Number.NEGATIVE_INFINITY;
    const value = Number(raw);
    if (raw.trim() !== "" && Number.isFinite(value)) return value;
  }
  throw invalid(path, `expected a number, got ${describe(raw)}`);
}

/** An optional (`proto3 optional`) double: `undefined` when absent. */
export function readOptionalDouble(raw: unknown, path: string): number | undefined {
  return raw === undefined || raw === null ? undefined : readDouble(raw, path);
}

/**
 * bytes. OTLP/JSON writes trace and span ids in hex and every other bytes field in base64.
 * Copies, so the result does not pin the (possibly pooled) request buffer.
 */
export function readBytes(raw: unknown, path: string, textEncoding: "hex" | "base64"): Uint8Array {
  if (raw === undefined || raw === null) return new Uint8Array(0);
  if (raw instanceof Uint8Array) return new Uint8Array(raw);
  if (typeof raw === "string") {
    if (textEncoding === "hex") {
      if (!HEX.test(raw)) throw invalid(path, "expected an even-length hex string");
      return new Uint8Array(Buffer.from(raw, "hex"));
    }
    if (!BASE64.test(raw)) throw invalid(path, "expected a base64 string");
    return new Uint8Array(Buffer.from(raw, raw.includes("-") || raw.includes("_") ? "base64url" : "base64"));
  }
  throw invalid(path, `expected bytes, got ${describe(raw)}`);
}
