import type { FastifyInstance, FastifyRequest } from "fastify";
import { MalformedBodyError } from "../../errors.js";

const MAY_HOLD_UNSTORABLE = Symbol("jobsight.bodyMayHoldUnstorable");

type Marked = { [MAY_HOLD_UNSTORABLE]?: boolean };

// `\u0000` or the escape of a surrogate, paired or not: the walk tells which are alone.
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * How deep a JSON body may nest arrays and objects. No request of the API comes near it (a
 * Kubernetes object under admission nests about 15 levels); far deeper input, which `JSON.parse`
 * takes, would overflow the stack of any recursive walk after it (the validators' `uniqueItems`
 * hash, the unstorable-text check) and fail as a 500.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Fastify's own JSON body parser (prototype and constructor poisoning refused, as by default),
 * noting on the request whether the text holds `\u0000` or a surrogate's escape (`\ud800`). JSON
 * carries U+0000 only as that escape (a raw control character is not valid JSON) and a lone
 * surrogate only as its escape (the body's bytes are decoded as UTF-8, which has none), so a body
 * whose text lacks them cannot hold one and {@link bodyMayHoldUnstorable} spares the check a walk
 * through every string of it: for a batch of a thousand predictions that walk cost more than
 * validating it. A body nesting deeper than {@link MAX_JSON_DEPTH} is refused as malformed (400).
 *
 * @example
 * ```ts
 * const app = Fastify();
 * registerJsonBodyParser(app);
 * ```
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new MalformedBodyError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    (request as Marked)[MAY_HOLD_UNSTORABLE] = text.includes("\\u") && UNSTORABLE_ESCAPE.test(text);
    parse(request, body as string, done);
  });
}

/**
 * False only for a body parsed by {@link registerJsonBodyParser} from text without `\u0000` or a
 * surrogate's escape; true for any other (another parser, or none), which must then be checked
 * string by string.
 */
export function bodyMayHoldUnstorable(request: FastifyRequest): boolean {
  return (request as Marked)[MAY_HOLD_UNSTORABLE] !== false;
}

/**
 * Whether `text` opens more than `max` arrays or objects inside each other, brackets within
 * strings not counted. Malformed text gets an answer too; the parser refuses it after.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // indexOf skips a string's body at native speed; a quote after an odd run of backslashes is escaped.
      i = text.indexOf('"', i + 1);
      while (i !== -1 && escaped(text, i)) i = text.indexOf('"', i + 1);
      if (i === -1) return false;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function escaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let j = quote - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}
