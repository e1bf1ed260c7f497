import type { ConfigReader } from "./config-reader.js";

/**
 * The optional language model that rephrases diagnoses (`intelligence.llm`): any
 * OpenAI-compatible chat-completions endpoint, off unless `baseUrl` and `model` are set. It may
 * only rephrase the structured findings; the diagnosis is complete without it.
 */
export type LlmConfig = {
  /** Base URL up to and including the API version, e.g. `http://10.0.0.5:8000/v1`. Required. */
  baseUrl: string;
  /** Model name as the endpoint knows it. Required. */
  model: string;
  /**
   * Name of the environment variable holding the endpoint's API key, so the key stays out of the
   * configuration file. @default undefined (no Authorization header)
   */
  apiKeyEnv?: string;
  /** Give up on the endpoint after this many milliseconds. @default 20000 */
  timeoutMs: number;
  /** Most tokens the model may write. @default 400 */
  maxTokens: number;
};

/**
 * Reads `intelligence.llm`; undefined when the section is absent (the default: no model).
 *
 * @example
 * ```ts
 * readLlm(reader.child("llm")); // { baseUrl: "http://10.0.0.5:8000/v1", model: "qwen2.5", timeoutMs: 20000, maxTokens: 400 }
 * ```
 */
export function readLlm(r: ConfigReader): LlmConfig | undefined {
  const baseUrl = r.option("intelligence.llm.baseUrl");
  const model = r.option("intelligence.llm.model");
  const apiKeyEnv = r.option("intelligence.llm.apiKeyEnv");
  const timeoutMs = r.option("intelligence.llm.timeoutMs");
  const maxTokens = r.option("intelligence.llm.maxTokens");
  r.rejectUnknownKeys();
  if (baseUrl === undefined && model === undefined && apiKeyEnv === undefined) return undefined;
  if (baseUrl === undefined) r.issue("baseUrl", "is required when a language model is configured");
  else if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) r.issue("baseUrl", "must be an http(s) URL");
  if (model === undefined) r.issue("model", "is required when a language model is configured");
  if (apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
    r.issue("apiKeyEnv", "must be the name of an environment variable");
  if (baseUrl === undefined || model === undefined) return undefined;
  return { baseUrl, model, ...(apiKeyEnv ? { apiKeyEnv } : {}), timeoutMs, maxTokens };
}
