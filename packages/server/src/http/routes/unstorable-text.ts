import type { FieldError } from "@jobsight/schemas";
import { MAX_JSON_DEPTH } from "./json-body-parser.js";

const NUL = "\u0000";
const NUL_MESSAGE = "Must not contain the NUL character (U+0000): PostgreSQL text cannot store it";
const SURROGATE_MESSAGE =
  "Must not contain an unpaired UTF-16 surrogate (U+D800 to U+DFFF, e.g. the JSON escape \\ud800 alone): it is not Unicode text and PostgreSQL cannot store it";

// With the `u` flag a surrogate pair is one code point, so only unpaired surrogates match.
const LONE_SURROGATE = /\p{Surrogate}/u;
const LONE_SURROGATES = /\p{Surrogate}/gu;

/** Why a string cannot be stored as PostgreSQL text, or `undefined` when it can. */
function problemOf(text: string): string | undefined {
  if (text.includes(NUL)) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return undefined;
}

/**
 * Every place in a request value where a string (or an object key) holds what PostgreSQL text
 * cannot store: U+0000, or a UTF-16 surrogate without its pair. JSON and URLs can carry both, so
 * they are refused at the door with the field named rather than failing later, as a storage error,
 * the whole batch they came in.
 *
 * @example
 * ```ts
 * unstorableTextErrors({ user: "a\u0000b", node: "n\ud800" }, "/body");
 * // [{ path: "/body/user", message: "Must not contain the NUL…" }, { path: "/body/node", message: "Must not contain an unpaired…" }]
 * ```
 */
export function unstorableTextErrors(value: unknown, path = ""): FieldError[] {
  // Nearly every request holds none: a walk that builds no paths answers that first, and the
  // paths are built only for the rare request that needs naming.
  if (!containsUnstorable(value, 0)) return [];
  const errors: FieldError[] = [];
  walk(value, path, errors, 0);
  return errors;
}

function containsUnstorable(value: unknown, depth: number): boolean {
  if (typeof value === "string") return problemOf(value) !== undefined;
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (containsUnstorable(value[i], depth + 1)) return true;
    return false;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (problemOf(key) !== undefined) return true;
    if (containsUnstorable((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

// Depth is bounded by the body parser already; the limit only guards values from elsewhere.
const MAX_DEPTH = MAX_JSON_DEPTH;

function walk(value: unknown, path: string, errors: FieldError[], depth: number): void {
  if (typeof value === "string") {
    const problem = problemOf(value);
    if (problem) errors.push({ path: path || "/", message: problem });
    return;
  }
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) walk(value[i], `${path}/${i}`, errors, depth + 1);
    return;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return;
  for (const key of Object.keys(value)) {
    const child = `${path}/${pointerEscape(key)}`;
    const problem = problemOf(key);
    if (problem) errors.push({ path: child, message: problem });
    walk((value as Record<string, unknown>)[key], child, errors, depth + 1);
  }
}

// The path names the key readably: NUL and lone surrogates as their escapes, which JSON can carry.
function pointerEscape(key: string): string {
  return key
    .replaceAll("~", "~0")
    .replaceAll("/", "~1")
    .replaceAll(NUL, "\\u0000")
    .replace(LONE_SURROGATES, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
