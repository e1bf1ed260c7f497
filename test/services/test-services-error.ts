/** Stable codes so a failing setup says which service broke without parsing messages. */
export type TestServicesErrorCode =
  | "TEST_SERVICES_MISSING"
  | "POSTGRES_START_FAILED"
  | "S3_START_FAILED"
  | "TIMESCALE_INSTALL_FAILED"
  | "TIMESCALE_START_FAILED"
  | "TIMESCALE_UNAVAILABLE"
  | "INVALID_OVERRIDE";

/** Raised by the shared integration-test services (start-up, overrides, helpers). */
export class TestServicesError extends Error {
  readonly code: TestServicesErrorCode;

  constructor(code: TestServicesErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TestServicesError";
    this.code = code;
  }
}
