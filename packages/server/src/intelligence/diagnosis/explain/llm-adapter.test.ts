import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { diagnose } from "../diagnose.js";
import { diagnosisScenarios } from "../scenarios/all-scenarios.js";
import { addProse, LlmProseAdapter } from "./llm-adapter.js";

const diagnosis = diagnose(diagnosisScenarios.find((s) => s.name === "oom-heap-leak")!.input, {
  now: "2026-12-01T00:00:00Z",
});

interface Seen {
  path?: string;
  auth?: string;
  body?: { model: string; temperature: number; messages: { role: string; content: string }[] };
}

let server: Server | undefined;

/** A local OpenAI-compatible stub on 127.0.0.1 at a port of its choosing. */
async function stub(
  handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void,
): Promise<{ baseUrl: string; seen: Seen }> {
  const seen: Seen = {};
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      seen.path = req.url;
      seen.auth = req.headers.authorization;
      seen.body = JSON.parse(raw);
      handler(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1/`, seen };
}

const answer = (content: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    }),
  );
};

afterEach(async () => {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise((resolve) => s.close(resolve));
});

describe("LlmProseAdapter and addProse", () => {
  it("is off unless an adapter is configured, and the diagnosis stays complete", async () => {
    const r = await addProse(diagnosis, undefined);
    expect(r.status).toBe("disabled");
    expect(r.diagnosis).toBe(diagnosis);
  });

  it("adds prose that only rephrases the findings, asking with the findings and the rules of the game", async () => {
    const prose =
      "Job 5101 ran out of memory on cn041: its heap grew steadily to 31.7 GiB until the 32 GiB limit killed python.";
    const { baseUrl, seen } = await stub(answer(prose));
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "local-7b", apiKey: "k-123" }));
    expect(r.status).toBe("added");
    expect(r.diagnosis.prose).toBe(prose);
    expect(seen.path).toBe("/v1/chat/completions");
    expect(seen.auth).toBe("Bearer k-123");
    expect(seen.body?.model).toBe("local-7b");
    expect(seen.body?.temperature).toBe(0);
    expect(seen.body?.messages[0]).toMatchObject({ role: "system" });
    expect(seen.body?.messages[0].content).toContain("Do not add causes, claims, advice or numbers");
    expect(JSON.parse(seen.body!.messages[1].content).findings[0].claim).toBe(diagnosis.findings[0].claim);
  });

  it("discards prose that mentions a number the findings do not contain", async () => {
    const { baseUrl } = await stub(answer("The job needed 48 GiB; request 72 GiB next time."));
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m" }));
    expect(r.status).toBe("rejected");
    expect(r.reason).toContain("48, 72");
    expect(r.diagnosis.prose).toBeUndefined();
  });

  it("sends no Authorization header without an API key", async () => {
    const { baseUrl, seen } = await stub(answer("Out of memory."));
    await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m" }));
    expect(seen.auth).toBeUndefined();
  });

  it("reports an HTTP error and keeps the diagnosis", async () => {
    const { baseUrl } = await stub((_q, res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("model loading");
    });
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m" }));
    expect(r.status).toBe("failed");
    expect(r.reason).toMatch(/^LLM_HTTP_ERROR: .*503: model loading/);
    expect(r.diagnosis).toBe(diagnosis);
  });

  it("gives up after its timeout", async () => {
    const { baseUrl } = await stub(() => {
      /* never answers */
    });
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m", timeoutMs: 150 }));
    expect(r.status).toBe("failed");
    expect(r.reason).toMatch(/^LLM_TIMEOUT/);
  });

  it("rejects an answer without a message", async () => {
    const { baseUrl } = await stub((_q, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [] }));
    });
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m" }));
    expect(r.reason).toMatch(/^LLM_BAD_RESPONSE/);
  });

  it("reports an endpoint nobody listens on", async () => {
    const { baseUrl } = await stub(answer("x"));
    server!.close();
    server!.closeAllConnections();
    const r = await addProse(diagnosis, new LlmProseAdapter({ baseUrl, model: "m", timeoutMs: 2000 }));
    expect(r.status).toBe("failed");
    expect(r.reason).toMatch(/^LLM_UNREACHABLE/);
  });
});
