import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import * as errors from "./errors.js";

const classes = Object.values(errors).filter(
  (v): v is typeof errors.JobsightError =>
    typeof v === "function" && v.prototype instanceof errors.JobsightError,
);

describe("error catalogue", () => {
  it("gives every code a status of its class (4xx/5xx) and an ApiError-shaped code", () => {
    for (const [code, entry] of Object.entries(errors.errorCatalogue)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.description.length).toBeGreaterThan(10);
    }
  });

  it("makes every error class answer a valid ApiError with the catalogue's status", () => {
    const samples: errors.JobsightError[] = [
      new errors.ValidationError([{ path: "/a", message: "Expected string" }]),
      new errors.MalformedBodyError("bad"),
      new errors.InvalidCursorError(),
      new errors.UnauthenticatedError(),
      new errors.ForbiddenError("no"),
      new errors.NotFoundError("none"),
      new errors.JobAmbiguousError("42", ["a", "b"]),
      new errors.UnknownClusterError("hpc9", "/cluster"),
      new errors.ClusterHasJobsError("hpc1", 3),
      new errors.NoEarlierModelError("m-2"),
      new errors.ModelNotServableError("m-1", "model file missing"),
      new errors.PayloadTooLargeError(10),
      new errors.UnsupportedMediaTypeError("text/plain"),
      new errors.RateLimitedError(1.5),
      new errors.NotImplementedError("getPolicy"),
      new errors.StorageUnavailableError("down"),
      new errors.InternalError(new Error("x")),
    ];
    expect(new Set(samples.map((e) => e.constructor))).toEqual(new Set(classes));
    for (const error of samples) {
      const body = error.toApiError();
      expect(validators.ApiError.validate(body)).toMatchObject({ ok: true });
      expect(body.statusCode).toBe(errors.errorCatalogue[error.code].status);
    }
    expect(new errors.InternalError(new Error("secret detail")).message).not.toContain("secret");
  });

  it("summarises field errors for people", () => {
    expect(errors.describeFieldErrors([{ path: "/a", message: "x" }])).toBe("1 field is invalid: /a");
    expect(
      errors.describeFieldErrors([
        { path: "", message: "x" },
        { path: "/b", message: "y" },
      ]),
    ).toBe("2 fields are invalid: /, /b");
  });
});
