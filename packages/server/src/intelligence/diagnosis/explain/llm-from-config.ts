import type { LlmConfig } from "../../../config/llm-config.js";
import { LlmProseAdapter } from "./llm-adapter.js";

/**
 * The diagnosis prose adapter of `intelligence.llm`, its API key read from the environment
 * variable the configuration names (never from the file itself).
 *
 * @example
 * ```ts
 * const llm = llmAdapter({ baseUrl: "http://10.0.0.5:8000/v1", model: "qwen2.5", apiKeyEnv: "LLM_KEY", timeoutMs: 20000, maxTokens: 400 });
 * ```
 */
export function llmAdapter(config: LlmConfig, env: NodeJS.ProcessEnv = process.env): LlmProseAdapter {
  const apiKey = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  return new LlmProseAdapter({
    baseUrl: config.baseUrl,
    model: config.model,
    timeoutMs: config.timeoutMs,
    maxTokens: config.maxTokens,
    ...(apiKey ? { apiKey } : {}),
  });
}
