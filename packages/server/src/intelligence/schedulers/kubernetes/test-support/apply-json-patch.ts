import type { JsonPatchOperation } from "../json-patch.js";

function unescapeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/**
 * Apply `add` operations the way RFC 6902 (and the API server) does: the parent must exist, an
 * existing member is replaced. Throws where the API server would reject the patch.
 */
export function applyJsonPatch<T>(document: T, ops: readonly JsonPatchOperation[]): T {
  const root = structuredClone(document) as unknown;
  for (const op of ops) {
    if (op.op !== "add") throw new Error(`unsupported op ${op.op}`);
    if (!op.path.startsWith("/")) throw new Error(`bad path ${op.path}`);
    const segments = op.path.slice(1).split("/").map(unescapeSegment);
    const last = segments.pop()!;
    let parent: unknown = root;
    for (const s of segments) {
      if (parent === null || typeof parent !== "object")
        throw new Error(`path ${op.path}: no parent at ${s}`);
      parent = (parent as Record<string, unknown>)[s];
    }
    if (parent === null || typeof parent !== "object") throw new Error(`path ${op.path}: parent missing`);
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (!Number.isInteger(index) || index > parent.length) throw new Error(`path ${op.path}: bad index`);
      parent.splice(index, 0, structuredClone(op.value));
    } else {
      (parent as Record<string, unknown>)[last] = structuredClone(op.value);
    }
  }
  return root as T;
}
