import type { Diagnosis } from "@jobsight/schemas";
import { LlmAdapterError } from "../diagnosis-errors.js";
import { FINDING_LABELS } from "./finding-labels.js";
import { unsupportedNumbers } from "./prose-guard.js";

/** Options of {@link LlmProseAdapter}. The adapter is off unless the deployment constructs one. */
export interface LlmAdapterOptions {
  /**
   * Base URL of an OpenAI-compatible API, up to and including its version, e.g.
   * `http://127.0.0.1:8000/v1`; the adapter posts to `<baseUrl>/chat/completions`.
   * Required; no default.
   */
  readonly baseUrl: string;
  /** Model name as the endpoint knows it. Required; no default. */
  readonly model: string;
  /**
   * Bearer token, sent as `Authorization: Bearer <apiKey>`.
   * @default undefined (no Authorization header, as local servers expect)
   */
  readonly apiKey?: string;
  /**
   * Give up on the endpoint after this many milliseconds.
   * @default 20000
   */
  readonly timeoutMs?: number;
  /**
   * Most tokens the model may write.
   * @default 400
   */
  readonly maxTokens?: number;
}

const SYSTEM_PROMPT = [
  "You rephrase a diagnosis of a batch job for the engineer who ran it, in plain words.",
  "Use only the findings you are given. Do not add causes, claims, advice or numbers that are not in them.",
  "Every number you write must appear in the findings exactly as given; when unsure, leave the number out.",
  "If the cause was not determined, say so. Write one short paragraph of at most 120 words, no lists, no headings.",
].join(" ");

/**
 * Asks an OpenAI-compatible chat-completions endpoint to rephrase and summarise a diagnosis's
 * findings. It may only rephrase: the prompt says so, and {@link addProse} discards any answer that
 * mentions a number the findings do not contain.
 *
 * @example
 * ```ts
 * const llm = new LlmProseAdapter({ baseUrl: "http://127.0.0.1:8000/v1", model: "qwen2.5-7b-instruct" });
 * const { diagnosis } = await addProse(diagnose(input), llm);
 * ```
 */
export class LlmProseAdapter {
  readonly #options: Required<Omit<LlmAdapterOptions, "apiKey">> & { apiKey?: string };

  constructor(options: LlmAdapterOptions) {
    this.#options = {
      timeoutMs: 20_000,
      maxTokens: 400,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
  }

  /** The model's rephrasing of the diagnosis; throws {@link LlmAdapterError} when the call fails. */
  async rephrase(d: Diagnosis): Promise<string> {
    const o = this.#options;
    const body = {
      model: o.model,
      temperature: 0,
      max_tokens: o.maxTokens,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: JSON.stringify(promptPayload(d)) },
      ],
    };
    let res: Response;
    try {
      res = await fetch(`${o.baseUrl}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(o.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      throw new LlmAdapterError(
        timedOut ? "LLM_TIMEOUT" : "LLM_UNREACHABLE",
        `language model at ${o.baseUrl}: ${String(err)}`,
        { cause: err },
      );
    }
    if (!res.ok) {
      throw new LlmAdapterError(
        "LLM_HTTP_ERROR",
        `language model answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`,
      );
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch (err) {
      throw new LlmAdapterError("LLM_BAD_RESPONSE", "language model answered with invalid JSON", {
        cause: err,
      });
    }
    const content = (json as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
      ?.content;
    if (typeof content !== "string" || content.trim() === "") {
      throw new LlmAdapterError(
        "LLM_BAD_RESPONSE",
        "language model answer has no choices[0].message.content",
      );
    }
    return content.trim();
  }
}

function promptPayload(d: Diagnosis) {
  return {
    state: d.state ?? "not ended",
    causeDetermined: d.causeDetermined,
    findings: d.findings.map((f) => ({
      finding: FINDING_LABELS[f.kind],
      severity: f.severity,
      claim: f.claim,
    })),
    notSeen: d.unseen.map((u) => u.reason),
  };
}

/** What became of the prose. */
export type ProseStatus = "added" | "disabled" | "rejected" | "failed";

/**
 * Adds a language model's rephrasing to a diagnosis, when an adapter is configured and its answer
 * passes the guard. Never throws: without an adapter, on a failed call or a rejected answer, the
 * diagnosis comes back unchanged, complete as it is.
 */
export async function addProse(
  d: Diagnosis,
  adapter: LlmProseAdapter | undefined,
): Promise<{ diagnosis: Diagnosis; status: ProseStatus; reason?: string }> {
  if (!adapter) return { diagnosis: d, status: "disabled" };
  let prose: string;
  try {
    prose = await adapter.rephrase(d);
  } catch (err) {
    return {
      diagnosis: d,
      status: "failed",
      reason: err instanceof LlmAdapterError ? `${err.code}: ${err.message}` : String(err),
    };
  }
  const extra = unsupportedNumbers(prose, d);
  if (extra.length > 0) {
    return {
      diagnosis: d,
      status: "rejected",
      reason: `the answer mentions numbers not in the findings: ${extra.join(", ")}`,
    };
  }
  return { diagnosis: { ...d, prose }, status: "added" };
}
