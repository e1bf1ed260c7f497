import type { FastifyInstance, FastifyRequest } from "fastify";

const MAY_HOLD_UNSTORABLE = Symbol("jobsight.bodyMayHoldUnstorable");

type Marked = { [MAY_HOLD_UNSTORABLE]?: boolean };

// `\u0000` or the escape of a surrogate, paired or not: the walk tells which are alone.
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Fastify's own JSON body parser (prototype and constructor poisoning refused, as by default),
 * noting on the request whether the text holds `\u0000` or a surrogate's escape (`\ud800`). JSON
 * carries U+0000 only as that escape (a raw control character is not valid JSON) and a lone
 * surrogate only as its escape (the body's bytes are decoded as UTF-8, which has none), so a body
 * whose text lacks them cannot hold one and {@link bodyMayHoldUnstorable} spares the check a walk
 * through every string of it: for a batch of a thousand predictions that walk cost more than
 * validating it.
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
