import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SinkError } from "../errors.js";
import { HttpJsonSink } from "./http-json-sink.js";

type Seen = { method?: string; url?: string; headers: IncomingMessage["headers"]; body: unknown };

async function serve(
  status: number,
  answer: unknown = status < 300 ? { accepted: 1, duplicates: 0 } : { code: "X", message: "no" },
): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(text) });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("HttpJsonSink", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it("posts each kind to its ingest route with the bearer token and idempotency key", async () => {
    const s = await serve(200);
    server = s.server;
    const sink = new HttpJsonSink({ url: `${s.url}/`, token: "tok-1" });
    const signal = new AbortController().signal;
    const sample = { cluster: "c", jobId: "1", node: "n", time: "2026-01-01T00:00:00Z" };
    await sink.send({ kind: "usage", idempotencyKey: "abc:1-1", samples: [sample] }, signal);
    await sink.send(
      {
        kind: "event",
        idempotencyKey: "abc:2-2",
        events: [{ cluster: "c", node: "n", time: "2026-01-01T00:00:00Z", kind: "oom_kill", message: "m" }],
      },
      signal,
    );
    expect(s.seen.map((x) => [x.method, x.url])).toEqual([
      ["POST", "/v1/usage"],
      ["POST", "/v1/events"],
    ]);
    expect(s.seen[0].headers.authorization).toBe("Bearer tok-1");
    expect(s.seen[0].headers["idempotency-key"]).toBe("abc:1-1");
    expect(s.seen[0].body).toEqual({ idempotencyKey: "abc:1-1", samples: [sample] });
    expect(s.seen[1].body).toMatchObject({ events: [{ message: "m" }] });
  });

  it("resolves with the records a stored batch's answer names as refused, those of the batch only", async () => {
    const refused = {
      index: 1,
      path: "/samples/1/time",
      message: "must be a date-time",
      code: "VALIDATION_FAILED",
    };
    const s = await serve(200, {
      accepted: 1,
      duplicates: 0,
      rejected: [refused, { ...refused, index: 7, path: "/samples/7/time" }],
    });
    server = s.server;
    const sample = { cluster: "c", jobId: "1", node: "n", time: "2026-01-01T00:00:00Z" };
    const result = await new HttpJsonSink({ url: s.url }).send(
      { kind: "usage", idempotencyKey: "abc:1-2", samples: [sample, { ...sample, time: "soon" }] },
      new AbortController().signal,
    );
    expect(result).toEqual({ rejected: [refused] });
  });

  it.each([
    [503, true],
    [500, true],
    [429, true],
    [408, true],
    [401, true],
    [403, true],
    [400, false],
    [404, false],
    [413, false],
    [422, false],
  ])("treats HTTP %i as retryable=%s", async (status, retryable) => {
    const s = await serve(status);
    server = s.server;
    const sink = new HttpJsonSink({ url: s.url });
    const error = await sink
      .send({ kind: "job", idempotencyKey: "k:1-1", records: [] as never[] }, new AbortController().signal)
      .then(
        () => undefined,
        (e) => e,
      );
    // An empty batch is not sent at all.
    expect(error).toBeUndefined();
    const e2 = await sink
      .send(
        {
          kind: "usage",
          idempotencyKey: "k:1-1",
          samples: [{ cluster: "c", jobId: "1", node: "n", time: "2026-01-01T00:00:00Z" }],
        },
        new AbortController().signal,
      )
      .then(
        () => undefined,
        (e) => e,
      );
    expect(e2).toBeInstanceOf(SinkError);
    expect((e2 as SinkError).retryable).toBe(retryable);
    expect((e2 as SinkError).status).toBe(status);
  });

  it("reports an unreachable backend as retryable", async () => {
    const s = await serve(200);
    await new Promise<void>((r) => s.server.close(() => r()));
    const e = await new HttpJsonSink({ url: s.url })
      .send(
        {
          kind: "usage",
          idempotencyKey: "k:1-1",
          samples: [{ cluster: "c", jobId: "1", node: "n", time: "2026-01-01T00:00:00Z" }],
        },
        new AbortController().signal,
      )
      .then(
        () => undefined,
        (x) => x,
      );
    expect((e as SinkError).retryable).toBe(true);
  });
});
