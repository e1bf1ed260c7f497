import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NotFoundError } from "../../errors.js";
import { loadReportAssets, type ReportAssets } from "./report-assets.js";

/** Options of {@link webReportPlugin}. */
export type WebReportPluginOptions = {
  /** Folder of the page files. @default src/http/web/report-assets from source, dist/report-assets from the build */
  assetsDir?: string;
  /** Files already loaded (tests); overrides `assetsDir`. @default undefined */
  assets?: ReportAssets;
};

/** Where the report lives; the pages link to each other relatively, so only this names it. */
export const REPORT_PATH = "/report/";

// The pages hold no data and run only their own scripts; every figure comes from the API with the
// caller's token. Nothing may frame them or send the token elsewhere.
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/**
 * Serves the web report at `/report/`: static HTML, CSS and JS (no data, so no token needed) that
 * call the REST API with the bearer token the user pastes, or that arrives once as
 * `/report/#token=…`. Charts are drawn with uPlot, served from `/report/vendor/`.
 *
 * @example
 * ```ts
 * const app = await buildApp({ config });
 * await app.register(webReportPlugin);
 * // GET /report/ → index.html, /report/jobs.html?id=4242&cluster=hpc1 → a job's page
 * ```
 */
export async function webReportPlugin(app: FastifyInstance, options: WebReportPluginOptions): Promise<void> {
  const assets = options.assets ?? (await loadReportAssets(options.assetsDir));
  const limit = app.hasDecorator("rateLimit") ? [app.rateLimit()] : [];
  const send = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const file = assets.get(name);
    if (!file) throw new NotFoundError(`No report file ${name}`);
    reply.headers(SECURITY_HEADERS).header("etag", file.etag);
    if (request.headers["if-none-match"] === file.etag) return reply.code(304).send();
    return reply.type(file.contentType).send(file.body);
  };

  app.get("/report", { onRequest: limit }, async (request, reply) => {
    // Relative links need the trailing slash; the fragment (#token=…) survives the redirect.
    const [path, search] = splitUrl(request.url);
    if (!path.endsWith("/")) return reply.redirect(`${REPORT_PATH}${search}`, 301);
    return send(request, reply, "index.html");
  });
  app.get<{ Params: { file: string } }>("/report/:file", { onRequest: limit }, async (request, reply) =>
    send(request, reply, request.params.file || "index.html"),
  );
  app.get<{ Params: { file: string } }>(
    "/report/vendor/:file",
    { onRequest: limit },
    async (request, reply) => send(request, reply, `vendor/${request.params.file}`),
  );
}

function splitUrl(url: string): [string, string] {
  const q = url.indexOf("?");
  return q === -1 ? [url, ""] : [url.slice(0, q), url.slice(q)];
}
