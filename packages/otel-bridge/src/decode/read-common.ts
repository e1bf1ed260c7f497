import { OtlpDecodeError } from "../errors.js";
import type { AnyValue, EntityRef, InstrumentationScope, KeyValue, Resource } from "../otlp/otlp-types.js";
import {
  readArray,
  readBool,
  readBytes,
  readDouble,
  readInt64,
  readObject,
  readString,
  readUint32,
} from "./read-scalars.js";

/**
 * Readers for the common.v1 and resource.v1 messages shared by every OTLP signal
 * (AnyValue, KeyValue, InstrumentationScope, Resource), plus the list and oneof helpers the
 * metrics readers use.
 */

/** AnyValue arrays and kvlists may nest; past this depth the body is refused. */
export const MAX_ANY_VALUE_DEPTH = 32;

export type Raw = Record<string, unknown>;
export const EMPTY: Raw = {};

export function each<T>(raw: unknown, path: string, read: (item: unknown, itemPath: string) => T): T[] {
  const items = readArray(raw, path);
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = read(items[i], `${path}[${i}]`);
  return out;
}

/**
 * A field that is really present. protobufjs messages inherit a default for every field from
 * their prototype (0 for an unset `as_double`), so presence-sensitive fields (oneof members,
 * proto3 `optional`) must be own properties.
 */
export function own(o: Raw, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

export function oneOf(o: Raw, path: string, members: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const m of members) {
    const value = own(o, m);
    if (value === undefined || value === null) continue;
    if (found) throw new OtlpDecodeError("OTLP_INVALID_FIELD", `both ${found} and ${m} are set`, { path });
    found = m;
  }
  return found;
}

const anyValueMembers = [
  "stringValue",
  "boolValue",
  "intValue",
  "doubleValue",
  "arrayValue",
  "kvlistValue",
  "bytesValue",
] as const;

export function readAnyValue(raw: unknown, path: string, depth = 0): AnyValue {
  if (depth > MAX_ANY_VALUE_DEPTH) {
    throw new OtlpDecodeError("OTLP_NESTING_TOO_DEEP", `AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`, {
      path,
    });
  }
  const o = readObject(raw, path) ?? EMPTY;
  switch (oneOf(o, path, anyValueMembers)) {
    case "stringValue":
      return { stringValue: readString(o.stringValue, `${path}.stringValue`) };
    case "boolValue":
      return { boolValue: readBool(o.boolValue, `${path}.boolValue`) };
    case "intValue":
      return { intValue: readInt64(o.intValue, `${path}.intValue`) };
    case "doubleValue":
      return { doubleValue: readDouble(o.doubleValue, `${path}.doubleValue`) };
    case "arrayValue": {
      const a = readObject(o.arrayValue, `${path}.arrayValue`) ?? EMPTY;
      const values = each(a.values, `${path}.arrayValue.values`, (v, p) => readAnyValue(v, p, depth + 1));
      return { arrayValue: { values } };
    }
    case "kvlistValue": {
      const l = readObject(o.kvlistValue, `${path}.kvlistValue`) ?? EMPTY;
      const values = each(l.values, `${path}.kvlistValue.values`, (v, p) => readKeyValue(v, p, depth + 1));
      return { kvlistValue: { values } };
    }
    case "bytesValue":
      return { bytesValue: readBytes(o.bytesValue, `${path}.bytesValue`, "base64") };
    default:
      return {};
  }
}

export function readKeyValue(raw: unknown, path: string, depth = 0): KeyValue {
  const o = readObject(raw, path) ?? EMPTY;
  return { key: readString(o.key, `${path}.key`), value: readAnyValue(o.value, `${path}.value`, depth) };
}

export function readAttributes(raw: unknown, path: string): KeyValue[] {
  return each(raw, path, (v, p) => readKeyValue(v, p));
}

export function readScope(raw: unknown, path: string): InstrumentationScope | undefined {
  const o = readObject(raw, path);
  if (!o) return undefined;
  return {
    name: readString(o.name, `${path}.name`),
    version: readString(o.version, `${path}.version`),
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    droppedAttributesCount: readUint32(o.droppedAttributesCount, `${path}.droppedAttributesCount`),
  };
}

function readEntityRef(raw: unknown, path: string): EntityRef {
  const o = readObject(raw, path) ?? EMPTY;
  return {
    schemaUrl: readString(o.schemaUrl, `${path}.schemaUrl`),
    type: readString(o.type, `${path}.type`),
    idKeys: each(o.idKeys, `${path}.idKeys`, readString),
    descriptionKeys: each(o.descriptionKeys, `${path}.descriptionKeys`, readString),
  };
}

export function readResource(raw: unknown, path: string): Resource | undefined {
  const o = readObject(raw, path);
  if (!o) return undefined;
  return {
    attributes: readAttributes(o.attributes, `${path}.attributes`),
    droppedAttributesCount: readUint32(o.droppedAttributesCount, `${path}.droppedAttributesCount`),
    entityRefs: each(o.entityRefs, `${path}.entityRefs`, readEntityRef),
  };
}
