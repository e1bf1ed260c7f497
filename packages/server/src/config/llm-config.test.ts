import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { diagnose } from "../intelligence/diagnosis/diagnose.js";
import { llmAdapter } from "../intelligence/diagnosis/explain/llm-from-config.js";
import { diagnosisScenarios } from "../intelligence/diagnosis/scenarios/all-scenarios.js";
import { ConfigError } from "./config-error.js";
import { parseServerConfig } from "./parse-config.js";

function issuesOf(raw: unknown): string[] {
  try {
    parseServerConfig(raw, { cwd: "/srv" });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("intelligence.llm", () => {
  it("is off by default", () => {
    expect(parseServerConfig({}, { cwd: "/srv" }).intelligence.llm).toBeUndefined();
  });

  it("reads an endpoint with its defaults, the key's variable name but never a key", () => {
    const config = parseServerConfig(
      {
        intelligence: { llm: { baseUrl: "http://10.0.0.5:8000/v1", model: "qwen2.5", apiKeyEnv: "LLM_KEY" } },
      },
      { cwd: "/srv" },
    );
    expect(config.intelligence.llm).toEqual({
      baseUrl: "http://10.0.0.5:8000/v1",
      model: "qwen2.5",
      apiKeyEnv: "LLM_KEY",
      timeoutMs: 20_000,
      maxTokens: 400,
    });
    expect(issuesOf({ intelligence: { llm: { baseUrl: "x", model: "m", apiKey: "sk-1" } } })).toEqual([
      "intelligence.llm.apiKey: is not a known setting",
      "intelligence.llm.baseUrl: must be an http(s) URL",
    ]);
  });

  it("names what is missing and what is out of range", () => {
    expect(issuesOf({ intelligence: { llm: { model: "m", timeoutMs: 5, apiKeyEnv: "1bad" } } })).toEqual([
      "intelligence.llm.timeoutMs: must be at least 100, got 5",
      "intelligence.llm.baseUrl: is required when a language model is configured",
      "intelligence.llm.apiKeyEnv: must be the name of an environment variable",
    ]);
  });

  it("builds the adapter that sends the key from the named variable, and none without one", async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      req.resume();
      req.on("end", () => {
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({ choices: [{ message: { role: "assistant", content: "It ran out of memory." } }] }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const config = { baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", timeoutMs: 5_000, maxTokens: 16 };
      const d = diagnose(diagnosisScenarios[0].input, { now: "2026-12-01T00:00:00Z" });
      expect(await llmAdapter({ ...config, apiKeyEnv: "K" }, { K: "secret-1" }).rephrase(d)).toBe(
        "It ran out of memory.",
      );
      await llmAdapter(config, { K: "secret-1" }).rephrase(d);
      expect(seen).toEqual(["Bearer secret-1", undefined]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
