import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ScrapeError } from "../../errors.js";
import { fetchExposition } from "./fetch-exposition.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

async function serve(handler: RequestListener): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ScrapeError,
  );

describe("fetchExposition", () => {
  it("gives the body and sends the headers asked for, asking for the text format", async () => {
    let seen: Record<string, unknown> = {};
    const url = await serve((req, res) => {
      seen = req.headers;
      res.end("up 1\n");
    });
    expect(await fetchExposition(url, 2000, 1024, { headers: { authorization: "Bearer t" } })).toBe("up 1\n");
    expect(seen).toMatchObject({
      authorization: "Bearer t",
      accept: expect.stringMatching(/^text\/plain;version=0\.0\.4/),
    });
  });

  it("rejects a non-2xx answer with its status", async () => {
    const url = await serve((_req, res) => void res.writeHead(403).end("Forbidden"));
    const error = await failure(fetchExposition(url, 2000, 1024));
    expect(error).toBeInstanceOf(ScrapeError);
    expect(error).toMatchObject({ code: "SCRAPE_FAILED", status: 403, message: "HTTP 403" });
  });

  it("stops reading as soon as the body passes the limit, even from an endless answer", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, "a");
      const pump = () => {
        while (res.write(chunk));
        res.once("drain", pump);
      };
      pump();
    });
    const error = await failure(fetchExposition(url, 10_000, 1024 * 1024));
    expect(error).toMatchObject({ message: "response over 1048576 bytes", status: undefined });
  });

  it("gives up on an answer that does not complete in time", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write("# trickle\n");
    });
    const started = Date.now();
    const error = await failure(fetchExposition(url, 300, 1024));
    expect(error).toMatchObject({ message: "no complete answer within 300 ms" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("rejects a URL it cannot fetch without throwing synchronously", async () => {
    expect(await failure(fetchExposition("unix:/run/kubelet.sock", 1000, 1024))).toMatchObject({
      message: "unix:/run/kubelet.sock is not an http or https URL",
    });
  });
});
