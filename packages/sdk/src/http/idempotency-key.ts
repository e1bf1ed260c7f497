/**
 * A fresh idempotency key (a random UUID). Web Crypto is global in Node 20 and in browsers, so the
 * client entry point stays free of Node-only imports.
 */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
