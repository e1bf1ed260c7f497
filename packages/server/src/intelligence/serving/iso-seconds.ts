/**
 * Unix seconds as an ISO 8601 instant, as `new Date(seconds * 1000).toISOString()`, remembered:
 * the evidence of every prediction names when its group's history starts, a few thousand distinct
 * instants across a site, and formatting one was a tenth of making a batch's outcomes.
 * Bounded: once it holds 4,096 instants it starts over.
 *
 * @example
 * ```ts
 * isoSeconds(0); // "1970-01-01T00:00:00.000Z"
 * ```
 */
export function isoSeconds(seconds: number): string {
  let text = known.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString();
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(seconds, text);
  }
  return text;
}

const MAX_KNOWN = 4096;
const known = new Map<number, string>();
