import { type Static, Type } from "@sinclair/typebox";

/** One offending field of a request. */
export const FieldError = Type.Object(
  {
    path: Type.String({
      description: "JSON Pointer of the field, e.g. /spec/requested/memoryBytes ('' for the body).",
    }),
    message: Type.String({ description: "Why it was refused." }),
  },
  { additionalProperties: false, description: "An offending field." },
);
export type FieldError = Static<typeof FieldError>;

/**
 * Every error the REST API answers with.
 *
 * @example
 * ```json
 * { "code": "VALIDATION_FAILED", "message": "2 fields are invalid", "statusCode": 400,
 *   "errors": [{ "path": "/spec/user", "message": "Expected string" }] }
 * ```
 */
export const ApiError = Type.Object(
  {
    code: Type.String({
      pattern: "^[A-Z][A-Z0-9_]*$",
      description: "Stable machine-readable code, e.g. VALIDATION_FAILED.",
    }),
    message: Type.String({ description: "What went wrong, for a person." }),
    statusCode: Type.Integer({ minimum: 400, maximum: 599, description: "The HTTP status." }),
    errors: Type.Optional(
      Type.Array(FieldError, { description: "For validation errors: every offending field." }),
    ),
    retryAfterSeconds: Type.Optional(
      Type.Number({ minimum: 0, description: "For retryable errors: when to retry." }),
    ),
  },
  { $id: "ApiError", additionalProperties: false, description: "An error answer." },
);
export type ApiError = Static<typeof ApiError>;
