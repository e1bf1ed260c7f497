import { request as httpRequest, type IncomingMessage } from "node:http";
import { type Agent, request as httpsRequest } from "node:https";
import { ScrapeError } from "../../errors.js";

/** Options of {@link fetchExposition}. */
export type FetchExpositionOptions = {
  /** Request headers added to `accept`, e.g. `authorization`. @default none */
  headers?: Record<string, string>;
  /** Agent of an `https` URL, carrying its TLS trust (CA, verification); unused for `http`. @default Node.js's global agent (the CAs it trusts) */
  agent?: Agent;
};

// The text format the parser reads; an endpoint that also speaks OpenMetrics must not send that.
const ACCEPT = "text/plain;version=0.0.4;q=1,*/*;q=0.1";

/**
 * The text a Prometheus endpoint (`http` or `https`) serves. Rejects with a {@link ScrapeError}
 * when no complete answer comes within `timeoutMs`, on a non-2xx answer (its `status` set), on a
 * connection or TLS failure (the cause kept), and as soon as the body passes `maxBytes`.
 *
 * @example
 * ```ts
 * const body = await fetchExposition("http://127.0.0.1:9400/metrics", 5_000, 8 * 1024 * 1024);
 * ```
 */
export function fetchExposition(
  url: string,
  timeoutMs: number,
  maxBytes: number,
  options: FetchExpositionOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      reject(new ScrapeError(`${url} is not a URL`));
      return;
    }
    const secure = target.protocol === "https:";
    if (!secure && target.protocol !== "http:") {
      reject(new ScrapeError(`${url} is not an http or https URL`));
      return;
    }
    let settled = false;
    const settle = (error: ScrapeError | undefined, body?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(body!);
    };
    const onResponse = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        res.resume();
        settle(new ScrapeError(`HTTP ${status}`, status));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) settle(new ScrapeError(`response over ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on("end", () => settle(undefined, Buffer.concat(chunks).toString("utf8")));
      res.on("error", (error) => settle(new ScrapeError(error.message, undefined, { cause: error })));
    };
    // One limit for the whole exchange: a kubelet trickling its answer must not hold the round.
    const timer = setTimeout(
      () => settle(new ScrapeError(`no complete answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const headers = { accept: ACCEPT, ...options.headers };
    const req = secure
      ? httpsRequest(target, { headers, agent: options.agent }, onResponse)
      : httpRequest(target, { headers }, onResponse);
    req.on("error", (error) => settle(new ScrapeError(error.message, undefined, { cause: error })));
    req.end();
  });
}
