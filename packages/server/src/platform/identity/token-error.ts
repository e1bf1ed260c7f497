import { JobsightError } from "../../errors.js";

/**
 * Why a credential was refused. Every reason answers 401 `UNAUTHENTICATED` on the wire; the reason
 * travels in the error's `errors[0].message` (prefixed, e.g. `TOKEN_EXPIRED: …`) and in logs, so
 * clients and operators can tell an expired token from a forged one.
 */
export const tokenErrorCatalogue = {
  TOKEN_MALFORMED: "The token is not a well-formed compact JWS/JWT or API token.",
  TOKEN_ALGORITHM: "The token's algorithm is not allow-listed (never `none` or HS*).",
  TOKEN_SIGNATURE: "The signature does not verify, or no published key matches the token's key id.",
  TOKEN_ISSUER: "The token was issued by another issuer.",
  TOKEN_AUDIENCE: "The token was issued for another audience.",
  TOKEN_EXPIRED: "The token has expired (beyond the allowed clock skew).",
  TOKEN_NOT_YET_VALID: "The token's not-before time is in the future (beyond the allowed clock skew).",
  TOKEN_CLAIMS: "A required claim (e.g. `sub`) is missing or of the wrong type.",
  TOKEN_NO_USER:
    "The token lacks the configured user name claim (`preferred_username` by default); its `sub` is used only when `oidc.claims.user` names it.",
  TOKEN_UNKNOWN: "No API token with this value exists.",
  TOKEN_REVOKED: "The API token has been revoked.",
  OIDC_DISCOVERY_FAILED: "The identity provider's discovery document or key set could not be fetched.",
} as const satisfies Record<string, string>;

/** A stable reason code of a refused credential. */
export type TokenErrorCode = keyof typeof tokenErrorCatalogue;

/**
 * A credential that was refused: HTTP 401 with a stable {@link TokenErrorCode} in `reason`. It is a
 * {@link JobsightError}, so the server's error handler answers it without further mapping.
 *
 * @example
 * ```ts
 * throw new TokenError("TOKEN_EXPIRED", "The token expired at 2026-01-01T00:00:00Z");
 * ```
 */
export class TokenError extends JobsightError {
  /** Why the credential was refused. */
  readonly reason: TokenErrorCode;

  constructor(reason: TokenErrorCode, message: string = tokenErrorCatalogue[reason], cause?: unknown) {
    super("UNAUTHENTICATED", message, {
      cause,
      errors: [{ path: "/headers/authorization", message: `${reason}: ${message}` }],
    });
    this.reason = reason;
  }
}
