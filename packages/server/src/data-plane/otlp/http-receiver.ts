import type { AddressInfo } from "node:net";
import type { Server as TlsServer } from "node:tls";
import {
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
  type OtlpHttpEncoding,
  otlpHttpEncoding,
} from "@jobsight/otel-bridge";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { NotFoundError } from "../../errors.js";
import { answerExpectContinue } from "../../platform/expect-continue.js";
import type { Principal } from "../../platform/identity/principal.js";
import { httpsServerOptions, type TlsMaterial } from "../../platform/tls.js";
import { inflateOtlpBody } from "./http-body.js";
import { otlpFailure } from "./otlp-failure.js";
import type { OtlpIngest } from "./otlp-ingest.js";
import type { OtlpLogger } from "./otlp-logger.js";
import { encodeRpcStatus, encodeRpcStatusJson } from "./rpc-status.js";

/** Options of {@link startHttpReceiver}. */
export type HttpReceiverOptions = {
  /** Authorisation and storage of exports. */
  ingest: OtlpIngest;
  /** Address to bind. @default "127.0.0.1" */
  host?: string;
  /** Port; 0 picks a free one. @default 4318 */
  port?: number;
  /** Largest body accepted, compressed and after decompression, in bytes. @default 20971520 */
  maxMessageBytes?: number;
  /** Milliseconds a request may take before its socket is closed. @default 120000 */
  requestTimeoutMs?: number;
  /** Where refusals and failures are logged. @default silent */
  log?: OtlpLogger;
  /**
   * Certificate and key to serve HTTPS with (and the CA client certificates must chain to, under
   * mutual TLS), from `loadTlsMaterial`. @default undefined (plain HTTP)
   */
  tls?: TlsMaterial;
};

/** A listening OTLP/HTTP receiver. */
export type HttpReceiver = {
  /** `https://host:port/v1/metrics` (`http://` without TLS), as OTLP HTTP exporters take it. */
  url: string;
  port: number;
  /** Serves new connections with renewed material (TLS listeners only; ignored without TLS). */
  setTls(material: TlsMaterial): void;
  /**
   * Stops taking requests and waits for the ones in flight (their connections are closed after
   * the answer); connections still open after `timeoutMs` are cut. @default 20000
   */
  close(timeoutMs?: number): Promise<void>;
};

type OtlpRequestState = { principal?: Principal & { cluster: string }; encoding?: OtlpHttpEncoding };
const STATE = Symbol("otlp");
type WithState = FastifyRequest & { [STATE]?: OtlpRequestState };

/** The encoding to answer in: the request's when it is one OTLP knows, else JSON (readable). */
function answerEncoding(request: FastifyRequest): OtlpHttpEncoding {
  try {
    return otlpHttpEncoding(request.headers["content-type"]);
  } catch {
    return "json";
  }
}

/**
 * Starts the OTLP/HTTP receiver: `POST /v1/metrics` with `application/x-protobuf` or
 * `application/json` bodies, gzip or deflate compressed or not, answered in the same encoding.
 * The bearer token and content type are checked before the body is read (and, for a request with
 * `Expect: 100-continue`, before the client is asked for it). Failures answer with a
 * `google.rpc.Status` body and the OTLP status codes: 400 malformed, 401/403 refused, 413 too
 * large, 415 wrong content type, 429 back-pressure and 503 storage unavailable (both with
 * `Retry-After`, which OTLP exporters honour).
 *
 * @example
 * ```ts
 * const receiver = await startHttpReceiver({ ingest, port: 4318, tls: await loadTlsMaterial(config.tls) });
 * // new OTLPMetricExporter({ url: receiver.url, headers: { authorization: `Bearer ${token}` } }) …
 * await receiver.close();
 * ```
 */
export async function startHttpReceiver(options: HttpReceiverOptions): Promise<HttpReceiver> {
  const { ingest, log } = options;
  const maxBytes = options.maxMessageBytes ?? 20 * 1024 * 1024;
  const app = Fastify({
    ...(options.tls ? { https: httpsServerOptions(options.tls) } : {}),
    logger: false,
    bodyLimit: maxBytes,
    requestTimeout: options.requestTimeoutMs ?? 120_000,
    forceCloseConnections: "idle",
    return503OnClosing: true,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  // A body announced with `Expect: 100-continue` over the limit gets 413 before it is sent.
  answerExpectContinue(app);

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const failure = otlpFailure(error, {
      bodyLimitBytes: maxBytes,
      contentType: request.headers["content-type"]?.slice(0, 100),
    });
    if (failure.serverFault) log?.error({ err: error, transport: "http" }, "otlp export failed");
    else log?.warn({ transport: "http", message: failure.status.message }, "otlp export refused");
    const retry = failure.status.retryAfterSeconds;
    if (retry !== undefined) reply.header("retry-after", String(retry));
    if (failure.httpStatus === 401) reply.header("www-authenticate", 'Bearer realm="jobsight"');
    reply.code(failure.httpStatus);
    if (answerEncoding(request) === "json") {
      return reply.type("application/json").send(encodeRpcStatusJson(failure.status));
    }
    return reply.type("application/x-protobuf").send(Buffer.from(encodeRpcStatus(failure.status)));
  });
  app.setNotFoundHandler((request) => {
    throw new NotFoundError(
      `No route ${request.method} ${request.url.split("?")[0]}; OTLP metrics go to POST /v1/metrics`,
    );
  });

  // Keep-alive connections would hold a closing server open: answers sent while closing end theirs.
  let closing = false;
  app.addHook("onSend", async (_request, reply) => {
    if (closing) reply.header("connection", "close");
  });

  app.post("/v1/metrics", {
    onRequest: async (request: WithState) => {
      const principal = await ingest.authorize(request.headers.authorization);
      const encoding = otlpHttpEncoding(request.headers["content-type"]);
      request[STATE] = { principal, encoding };
    },
    handler: async (request: WithState, reply: FastifyReply) => {
      const { principal, encoding } = request[STATE] ?? {};
      if (!principal || !encoding) throw new Error("OTLP request state missing");
      const started = performance.now();
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const outcome = await ingest.export(principal, async (options) => {
        const body = await inflateOtlpBody(raw, request.headers["content-encoding"], maxBytes);
        // The body is not read again: a decode worker may take it rather than a copy.
        return ingest.decode(body, encoding, options, { transfer: true });
      });
      log?.debug(
        { transport: "http", ms: performance.now() - started, ...outcome, response: undefined },
        "otlp export stored",
      );
      if (encoding === "json") {
        return reply.type("application/json").send(encodeExportMetricsResponseJson(outcome.response));
      }
      return reply
        .type("application/x-protobuf")
        .send(Buffer.from(encodeExportMetricsResponse(outcome.response)));
    },
  });

  await app.listen({ host: options.host ?? "127.0.0.1", port: options.port ?? 4318 });
  const address = app.server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls ? "https" : "http"}://${host}:${address.port}/v1/metrics`,
    port: address.port,
    setTls: (material) => {
      if (options.tls) (app.server as unknown as TlsServer).setSecureContext(httpsServerOptions(material));
    },
    close: async (timeoutMs = 20_000) => {
      closing = true;
      const timer = setTimeout(() => app.server.closeAllConnections(), timeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
