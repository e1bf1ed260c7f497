import type { Readable } from "node:stream";

/** One element of the streamed array, as text, with its 1-based position. */
export type JsonArrayItem = { index: number; text: string };

/**
 * Streams the elements of the array under a top-level key (`{"jobs": [ … ]}`) without holding the
 * whole document: a scanner tracks strings, escapes and nesting, and yields each element's JSON
 * text once it is complete. Large `sacct --json` exports stay within memory this way.
 *
 * @example
 * ```ts
 * for await (const { index, text } of streamJsonArray(createReadStream("sacct.json"), "jobs")) JSON.parse(text);
 * ```
 */
export async function* streamJsonArray(source: Readable, key: string): AsyncGenerator<JsonArrayItem> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastKeyAtTop: string | undefined;
  let pendingString: string | undefined;
  let inArray = false;
  let item: string[] | undefined;
  let itemStart = 0;
  let index = 0;
  let seen = false;
  let carry = "";
  source.setEncoding?.("utf8");
  for await (const chunk of source) {
    const text = carry + (typeof chunk === "string" ? chunk : String(chunk));
    carry = "";
    itemStart = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') {
          inString = false;
          if (depth === 1 && !inArray && stringStart >= 0) pendingString = text.slice(stringStart + 1, i);
        }
        continue;
      }
      if (c === '"') {
        inString = true;
        stringStart = depth === 1 && !inArray ? i : -1;
        continue;
      }
      if (c === ":" && depth === 1 && !inArray) {
        lastKeyAtTop = pendingString;
        continue;
      }
      if (c === "{" || c === "[") {
        depth++;
        if (c === "[" && depth === 2 && lastKeyAtTop === key && !inArray) {
          inArray = true;
          seen = true;
        } else if (inArray && depth === 3) {
          item = [];
          itemStart = i;
        }
      } else if (c === "}" || c === "]") {
        if (inArray && depth === 3 && item) {
          item.push(text.slice(itemStart, i + 1));
          yield { index: ++index, text: item.join("") };
          item = undefined;
        }
        if (inArray && depth === 2 && c === "]") inArray = false;
        depth--;
      }
    }
    if (item) {
      item.push(text.slice(itemStart));
    }
    // A top-level key split across chunks: keep the tail for the next round.
    if (inString && stringStart >= 0) {
      carry = text.slice(stringStart);
      inString = false;
      escaped = false;
    }
  }
  if (!seen) throw new SyntaxError(`No "${key}" array at the top level of the document`);
  if (depth !== 0) throw new SyntaxError("The JSON document is truncated");
}
