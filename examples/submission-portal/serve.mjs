// Serves the built portal and forwards the Jobsight API to a Jobsight server, so that the page and
// the API share one origin (no CORS needed). In production a reverse proxy (nginx, the site's
// portal) does the same.
//   JOBSIGHT_URL=http://127.0.0.1:8080 node serve.mjs [--port 8090] [--host 127.0.0.1] [--root dist]
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
/** @type {Record<string, string>} */
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
};
// The Jobsight routes the page may call; everything else is a static file.
const API = /^\/(v1\/|healthz$|readyz$)/;

/**
 * @typedef {object} PortalServerOptions
 * @property {string} apiUrl  The Jobsight server to forward `/v1`, `/healthz` and `/readyz` to.
 * @property {string} [root]  The built portal. Default: `dist` next to this file.
 * @property {string} [host]  Listen address. Default: 127.0.0.1.
 * @property {number} [port]  Listen port, 0 for any free one. Default: 8090.
 */

/**
 * Starts the portal's server.
 * @param {PortalServerOptions} options
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function startPortalServer(options) {
  const api = new URL(options.apiUrl);
  const root = resolve(options.root ?? join(here, "dist"));
  const send = api.protocol === "https:" ? httpsRequest : httpRequest;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://portal.invalid");
    if (API.test(url.pathname)) {
      const forward = send(
        new URL(`${api.pathname.replace(/\/$/, "")}${url.pathname}${url.search}`, api),
        { method: req.method, headers: { ...req.headers, host: api.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ code: "BAD_GATEWAY", statusCode: 502, message: "Jobsight is not reachable" }),
        );
      });
      req.pipe(forward);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    const file = normalize(
      join(root, url.pathname === "/" ? "index.html" : decodeURIComponent(url.pathname)),
    );
    if (
      !file.startsWith(root + sep) ||
      !(await stat(file).then(
        (s) => s.isFile(),
        () => false,
      ))
    ) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-cache",
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8090, options.host ?? "127.0.0.1", () => resolveListen(undefined));
  });
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`,
    close: () =>
      new Promise((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose(undefined));
      }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      root: { type: "string" },
      api: { type: "string" },
    },
  });
  const apiUrl = values.api ?? process.env.JOBSIGHT_URL;
  if (!apiUrl) {
    console.error("Set JOBSIGHT_URL (or --api) to the Jobsight server, e.g. http://127.0.0.1:8080");
    process.exit(2);
  }
  const portal = await startPortalServer({
    apiUrl,
    host: values.host,
    port: values.port === undefined ? undefined : Number(values.port),
    root: values.root,
  });
  console.log(`Jobsight submission portal on ${portal.url} (API: ${apiUrl})`);
}
