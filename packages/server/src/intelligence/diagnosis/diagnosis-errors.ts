/** Stable codes of the diagnosis module's errors. */
export type DiagnosisErrorCode = "LLM_HTTP_ERROR" | "LLM_TIMEOUT" | "LLM_BAD_RESPONSE" | "LLM_UNREACHABLE";

/**
 * A language-model call failed. Never surfaces to a diagnosis's caller as a failure: the
 * diagnosis is complete without prose, so {@link addProse} reports it and moves on.
 */
export class LlmAdapterError extends Error {
  readonly code: DiagnosisErrorCode;
  constructor(code: DiagnosisErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LlmAdapterError";
    this.code = code;
  }
}
