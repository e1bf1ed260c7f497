/** Stable codes of {@link WebReportError}. */
export type WebReportErrorCode = "REPORT_ASSETS_MISSING";

/**
 * The web report cannot be served: its page files are not where the server looks for them (a
 * build whose `dist/report-assets` folder was not copied, or a wrong `assetsDir`).
 */
export class WebReportError extends Error {
  readonly code: WebReportErrorCode;

  constructor(code: WebReportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WebReportError";
    this.code = code;
  }
}
