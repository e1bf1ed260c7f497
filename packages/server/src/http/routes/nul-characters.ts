import type { FieldError } from "@jobsight/schemas";

const NUL = "\u0000";
const MESSAGE = "Must not contain the NUL character (U+0000): PostgreSQL text cannot store it";

/**
 * Every place in a request value where a string (or an object key) holds U+0000. JSON and URLs
 * can carry it, PostgreSQL `text` cannot, so it is refused at the door with the field named
 * rather than failing later as a storage error.
 *
 * @example
 * ```ts
 * nulCharacterErrors({ user: "a\u0000b" }, "/body"); // [{ path: "/body/user", message: "Must not…" }]
 * ```
 */
export function nulCharacterErrors(value: unknown, path = ""): FieldError[] {
  // Nearly every request holds none: a walk that builds no paths answers that first, and the
  // paths are built only for the rare request that needs naming.
  if (!containsNul(value, 0)) return [];
  const errors: FieldError[] = [];
  walk(value, path, errors, 0);
  return errors;
}

function containsNul(value: unknown, depth: number): boolean {
  if (typeof value === "string") return value.includes(NUL);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (containsNul(value[i], depth + 1)) return true;
    return false;
  }
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes(NUL) || containsNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

// Depth is bounded by the body parser already; the limit only guards against pathological input.
const MAX_DEPTH = 64;

function walk(value: unknown, path: string, errors: FieldError[], depth: number): void {
  if (typeof value === "string") {
    if (value.includes(NUL)) errors.push({ path: path || "/", message: MESSAGE });
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
    if (key.includes(NUL)) errors.push({ path: child, message: MESSAGE });
    walk((value as Record<string, unknown>)[key], child, errors, depth + 1);
  }
}

function pointerEscape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1").replaceAll(NUL, "\\u0000");
}
