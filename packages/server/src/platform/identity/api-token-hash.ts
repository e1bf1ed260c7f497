import { hash } from "node:crypto";

/**
 * sha256 (lower-case hex of the UTF-8 bytes) of a token: the only form in which tokens are
 * configured, stored and looked up. The one-shot `hash`, since every authenticated request asks.
 *
 * @example
 * ```ts
 * hashApiToken("jst_q3…"); // "9f86d0…" (64 hex digits)
 * ```
 */
export function hashApiToken(token: string): string {
  return hash("sha256", token, "hex");
}
