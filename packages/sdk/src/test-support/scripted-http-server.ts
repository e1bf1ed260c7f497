import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer; receives the request and its body. */
export type Step = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A request the scripted server saw. */
export type SeenRequest = {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
};

/**
 * A real HTTP server on 127.0.0.1 with a port of its own that answers with the given steps in
 * order (the last step repeats), so tests can script error statuses, Retry-After, bad bodies,
 * stalls and dropped connections.
 */
export async function startScriptedServer(steps: Step[]) {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, at: Date.now() });
      const step = steps[Math.min(seen.length - 1, steps.length - 1)];
      step(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answer JSON with a status and headers. */
export const json =
  (status: number, value: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(typeof value === "string" ? value : JSON.stringify(value));
  };

/** Answer a raw body with a content type. */
export const raw =
  (status: number, body: string, contentType = "text/html", headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { "content-type": contentType, ...headers });
    res.end(body);
  };

/** Drop the connection without answering. */
export const drop: Step = (req) => {
  req.socket.destroy();
};

/** Never answer (the client's timeout must fire). */
export const stall: Step = () => {};

/** Send the headers and half a body, then stall. */
export const stallMidBody: Step = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"status":"o');
};
