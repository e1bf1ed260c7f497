/*
 * Errors of the ONNX export and serving path. Each has a stable `code` so callers (and the HTTP
 * layer) branch on the code, never on the message.
 */

/** Stable codes of the errors below. */
export const OnnxErrorCode = {
  invalidEnsemble: "ONNX_EXPORT_INVALID_ENSEMBLE",
  invalidModel: "ONNX_MODEL_INVALID",
  featureCountMismatch: "ONNX_FEATURE_COUNT_MISMATCH",
  inferenceFailed: "ONNX_INFERENCE_FAILED",
  runnerClosed: "ONNX_RUNNER_CLOSED",
} as const;
export type OnnxErrorCode = (typeof OnnxErrorCode)[keyof typeof OnnxErrorCode];

/** Base class: `instanceof OnnxError` catches every error of this module. */
export abstract class OnnxError extends Error {
  abstract readonly code: OnnxErrorCode;
}

/** An ensemble (or set of ensembles) cannot be exported as given; `path` names the offending part. */
export class OnnxExportError extends OnnxError {
  readonly code = OnnxErrorCode.invalidEnsemble;
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = "OnnxExportError";
  }
}

/** The bytes are not a model ONNX Runtime can load (corrupt, truncated, unsupported). */
export class OnnxModelLoadError extends OnnxError {
  readonly code = OnnxErrorCode.invalidModel;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OnnxModelLoadError";
  }
}

/** The input rows do not have the model's number of features. */
export class OnnxFeatureCountError extends OnnxError {
  readonly code = OnnxErrorCode.featureCountMismatch;
  constructor(
    readonly expectedFeatures: number,
    readonly receivedFeatures: number,
    detail = "",
  ) {
    super(`model expects rows of ${expectedFeatures} features, received ${receivedFeatures}${detail}`);
    this.name = "OnnxFeatureCountError";
  }
}

/** ONNX Runtime failed while running a loaded model. */
export class OnnxInferenceError extends OnnxError {
  readonly code = OnnxErrorCode.inferenceFailed;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OnnxInferenceError";
  }
}

/** `run()` was called after `close()`. */
export class OnnxRunnerClosedError extends OnnxError {
  readonly code = OnnxErrorCode.runnerClosed;
  constructor() {
    super("the ONNX model runner is closed");
    this.name = "OnnxRunnerClosedError";
  }
}

/** The message of what ONNX Runtime or the decoder threw, for an error of this module to quote. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
