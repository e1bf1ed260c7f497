import { isMap, isScalar, type Pair, type Scalar, type YAMLMap } from "yaml";

/** Replace [start, end) of the source with text. */
export type TextEdit = { start: number; end: number; text: string };

/** Keys to add: a value, or a nested map of more keys. */
export type KeyTree = { [key: string]: string | KeyTree };

/**
 * Apply non-overlapping edits to a text. Insertions at the same offset land in the order of the
 * list (a key added to `requests` stays above a `limits:` block added after it).
 */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  let out = text;
  const order = edits
    .map((e, i) => ({ e, i }))
    .sort((a, b) => b.e.start - a.e.start || b.e.end - a.e.end || b.i - a.i);
  for (const { e } of order) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The column a node starts at. */
export function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** The offset just past the end-of-line of the line holding `offset` (or past a line that already ended there). */
function afterLine(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === "\n") return offset;
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

/**
 * Replace a scalar's text, keeping its quoting style. Undefined for block scalars (`|`, `>`),
 * which no quantity is ever written as.
 */
export function replaceScalar(node: Scalar, value: string, json = false): TextEdit | undefined {
  const [start, end] = node.range!;
  if (node.type === "QUOTE_DOUBLE") return { start, end, text: `"${value}"` };
  if (node.type === "QUOTE_SINGLE") return { start, end, text: `'${value}'` };
  // A bare number in JSON that becomes `24Gi` must become a string.
  if (node.type === "PLAIN") return { start, end, text: json && !/^\d+$/.test(value) ? `"${value}"` : value };
  return undefined;
}

// In a JSON manifest (quoted keys) new entries are written as JSON too, so it stays JSON.
function renderFlow(tree: KeyTree, json = false): string {
  const q = (s: string) => (json ? JSON.stringify(s) : s);
  return `{${Object.entries(tree)
    .map(([k, v]) => `${q(k)}: ${typeof v === "string" ? q(v) : renderFlow(v, json)}`)
    .join(", ")}}`;
}

/** How new lines are written: the document's indentation step, end-of-line, and whether it is JSON. */
export type InsertStyle = { step: number; eol: string; json: boolean };

function renderBlock(tree: KeyTree, indent: number, step: number, eol: string): string {
  let out = "";
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") out += `${" ".repeat(indent)}${key}: ${value}${eol}`;
    else out += `${" ".repeat(indent)}${key}:${eol}${renderBlock(value, indent + step, step, eol)}`;
  }
  return out;
}

// Text inserted at the very end of a file that has no final end-of-line must bring its own in
// front, and leave the file still without one.
function insertLines(text: string, at: number, block: string, eol: string): TextEdit {
  if (at === text.length && text.length > 0 && !text.endsWith("\n")) {
    return { start: at, end: at, text: eol + block.slice(0, block.length - eol.length) };
  }
  return { start: at, end: at, text: block };
}

/** The indentation step a document uses for nested maps, read from the first nested block map found. */
export function indentStep(text: string, ...roots: (YAMLMap | undefined)[]): number {
  const visit = (map: YAMLMap, depth: number): number | undefined => {
    if (depth > 6) return undefined;
    for (const pair of map.items) {
      const value = pair.value;
      if (isMap(value) && !value.flow && value.items.length > 0 && isScalar(pair.key)) {
        const child = value.items[0].key as Scalar;
        const step = columnOf(text, child.range![0]) - columnOf(text, (pair.key as Scalar).range![0]);
        if (step > 0) return step;
      }
      if (isMap(value)) {
        const found = visit(value, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const root of roots) {
    const found = root && visit(root, 0);
    if (found) return found;
  }
  return 2;
}

/** Add keys to an existing map, in its own style (flow `{…}` or block lines at its indentation). */
export function addToMap(text: string, map: YAMLMap, tree: KeyTree, style: InsertStyle): TextEdit {
  const { step, eol } = style;
  if (map.flow) {
    const last = map.items.at(-1) as Pair<Scalar, Scalar> | undefined;
    const entries = renderFlow(tree, style.json).slice(1, -1);
    if (last) {
      const end = (last.value ?? last.key).range![1];
      return { start: end, end, text: `, ${entries}` };
    }
    const open = text.indexOf("{", map.range![0]);
    return { start: open + 1, end: open + 1, text: entries };
  }
  const first = map.items[0].key as Scalar;
  const indent = columnOf(text, first.range![0]);
  const last = map.items.at(-1) as Pair<Scalar, Scalar>;
  const at = afterLine(text, (last.value ?? last.key).range![1]);
  return insertLines(text, at, renderBlock(tree, indent, step, eol), eol);
}

/** Give a key that has no value (`resources:` or `resources: null`) a map of keys. */
export function fillEmptyValue(text: string, pair: Pair, tree: KeyTree, style: InsertStyle): TextEdit {
  const { step, eol } = style;
  const key = pair.key as Scalar;
  const value = pair.value as Scalar | null;
  if (value?.range && value.range[1] > value.range[0]) {
    return { start: value.range[0], end: value.range[1], text: renderFlow(tree, style.json) };
  }
  const at = afterLine(text, key.range![1]);
  return insertLines(text, at, renderBlock(tree, columnOf(text, key.range![0]) + step, step, eol), eol);
}
