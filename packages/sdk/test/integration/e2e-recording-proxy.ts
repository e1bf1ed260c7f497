import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";

/** One request that went through the proxy, and the status it got. */
export type RecordedCall = {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  accept?: string;
  /** Parsed JSON when the body was JSON, else the raw text; undefined without a body. */
  body?: unknown;
  status: number;
  responseType?: string;
  /** The answer: parsed JSON when it was JSON, else its text. */
  response?: unknown;
  /** A label the test set with `tag()` before the call (which example made it). */
  tag: string;
};

/** A reverse proxy in front of a server that records every call, e.g. to check it against OpenAPI. */
export type RecordingProxy = {
  url: string;
  calls: RecordedCall[];
  /** Label the calls that follow (until the next `tag`). */
  tag(label: string): void;
  close(): Promise<void>;
};

/**
 * Starts a recording reverse proxy on 127.0.0.1 forwarding to `target` byte for byte: examples
 * (a Python operator, a shell script, the CLI, a browser page) talk to it as if it were the
 * Jobsight server, and the test reads back what they really sent.
 *
 * @example
 * ```ts
 * const proxy = await startRecordingProxy(server.url);
 * proxy.tag("airflow");
 * // ... run the example against proxy.url ...
 * for (const call of proxy.calls) expect(checkCall(call)).toEqual([]);
 * ```
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const calls: RecordedCall[] = [];
  let currentTag = "";
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://proxy.invalid");
    const contentType = req.headers["content-type"];
    let body: unknown;
    if (raw.length > 0) {
      const text = raw.toString("utf8");
      try {
        body = contentType?.includes("json") ? JSON.parse(text) : text;
      } catch {
        body = text;
      }
    }
    const call: RecordedCall = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      contentType,
      accept: req.headers.accept,
      body,
      status: 0,
      tag: currentTag,
    };
    calls.push(call);
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        call.status = answer.statusCode ?? 0;
        call.responseType = answer.headers["content-type"];
        res.writeHead(call.status, answer.headers);
        const answerChunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => {
          answerChunks.push(chunk);
          res.write(chunk);
        });
        answer.on("end", () => {
          const text = Buffer.concat(answerChunks).toString("utf8");
          try {
            call.response = call.responseType?.includes("json") ? JSON.parse(text) : text;
          } catch {
            call.response = text;
          }
          res.end();
        });
      },
    );
    forward.on("error", () => req.socket.destroy());
    forward.end(raw);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    tag: (label) => {
      currentTag = label;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
