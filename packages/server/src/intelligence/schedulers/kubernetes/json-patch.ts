/** One segment of a JSON pointer: an object key or an array index. */
export type PointerSegment = string | number;

/** An RFC 6902 operation; the webhook only ever adds (which replaces an existing member). */
export type JsonPatchOperation = { op: "add"; path: string; value: unknown };

/**
 * Escape one segment of a JSON pointer (RFC 6901): `~` as `~0`, then `/` as `~1`.
 *
 * @example
 * ```ts
 * escapePointerSegment("nvidia.com/gpu"); // "nvidia.com~1gpu"
 * ```
 */
export function escapePointerSegment(segment: PointerSegment): string {
  return String(segment).replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * A JSON pointer from its segments.
 *
 * @example
 * ```ts
 * jsonPointer(["metadata", "annotations", "jobsight.io/changes"]); // "/metadata/annotations/jobsight.io~1changes"
 * ```
 */
export function jsonPointer(segments: readonly PointerSegment[]): string {
  return segments.map((s) => `/${escapePointerSegment(s)}`).join("");
}

/** The value at a path of plain JSON, or undefined. */
export function valueAt(root: unknown, segments: readonly PointerSegment[]): unknown {
  let node: unknown = root;
  for (const s of segments) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[String(s)];
  }
  return node;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Operations that set `key` inside the object at `parent`, creating the missing objects on the
 * way from the deepest one that exists (`add` of a whole object where a level is missing).
 *
 * @example
 * ```ts
 * setMember(pod, ["metadata", "annotations"], "a/b", "x");
 * // no annotations yet: [{ op: "add", path: "/metadata/annotations", value: { "a/b": "x" } }]
 * ```
 */
export function setMember(
  root: unknown,
  parent: readonly PointerSegment[],
  key: string,
  value: unknown,
): JsonPatchOperation[] {
  // Arrays on the way (containers, Argo templates) exist as much as objects do.
  const exists = (v: unknown) => v !== null && typeof v === "object";
  let depth = 0;
  while (depth < parent.length && exists(valueAt(root, parent.slice(0, depth + 1)))) depth += 1;
  if (depth === parent.length) return [{ op: "add", path: jsonPointer([...parent, key]), value }];
  let nested: unknown = { [key]: value };
  for (let i = parent.length - 1; i > depth; i -= 1) nested = { [String(parent[i])]: nested };
  return [{ op: "add", path: jsonPointer(parent.slice(0, depth + 1)), value: nested }];
}
