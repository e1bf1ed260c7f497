import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import { PayloadTooLargeError } from "../errors.js";

const awaitingContinue = new WeakSet<IncomingMessage>();
const answering = new WeakSet<object>();

/**
 * Answers `Expect: 100-continue` only once the request's route is known: a body its
 * `Content-Length` says is over the route's limit gets 413 (a `PayloadTooLargeError`, answered by
 * the app's error handler: an `ApiError` on the REST API, a `google.rpc.Status` on OTLP/HTTP)
 * before the client sends a byte, instead of `100 Continue` and a connection reset under a body
 * nobody reads. Node sends `100 Continue` at once by default; here it goes out when the route's
 * body is first read, so authentication, rate limits and unknown routes are answered without the
 * body too. Every other request is untouched. Call it once per app (the REST API and the OTLP/HTTP
 * receiver each have their own server), before its routes are ready.
 *
 * @example
 * ```ts
 * const app = Fastify({ bodyLimit: 1024 });
 * answerExpectContinue(app); // a 10 MB upload with Expect: 100-continue now gets 413, not a reset
 * ```
 */
export function answerExpectContinue(app: FastifyInstance): void {
  const server = app.server;
  if (answering.has(server)) return;
  answering.add(server);
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    // Until the body is asked for it is not sent: an answer before that must close the connection.
    res.setHeader("connection", "close");
    const sendContinue = (event: string | symbol) => {
      if (event !== "data" && event !== "readable") return;
      req.off("newListener", sendContinue);
      awaitingContinue.delete(req);
      if (res.headersSent || res.writableEnded) return;
      res.removeHeader("connection");
      res.writeContinue();
    };
    req.on("newListener", sendContinue);
    server.emit("request", req, res);
  });
  // Before the body parser reads (and so before `100 Continue`), with the route's own limit.
  app.addHook("preParsing", (request, _reply, payload, done) => {
    if (!awaitingContinue.has(request.raw)) {
      done(null, payload);
      return;
    }
    const limit = request.routeOptions.bodyLimit;
    const length = Number(request.headers["content-length"]);
    if (limit !== undefined && length > limit) {
      awaitingContinue.delete(request.raw);
      done(new PayloadTooLargeError(limit));
      return;
    }
    done(null, payload);
  });
}
