import type { FastifyRequest } from "fastify";
import { hashApiToken } from "../../data-plane/stores/api-token-store.js";
import { RateLimitedError } from "../../errors.js";
import { TokenBuckets } from "../../platform/token-bucket.js";
import { bearerToken } from "./auth.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Spends one request of the caller's budget; throws a 429 error when it is exhausted. */
    rateLimit(request: FastifyRequest): void;
  }
}

/** Options of {@link rateLimitPlugin}. */
export type RateLimitPluginOptions = {
  /** Apply limits. @default true */
  enabled?: boolean;
  /** Sustained requests per second per token (per IP without one). @default 50 */
  requestsPerSecond?: number;
  /** Burst size. @default 200 */
  burst?: number;
};

/**
 * Per-token request rate limits (per client IP for requests without a token), answered with 429,
 * a `Retry-After` header and `retryAfterSeconds`. Keyed by the token's hash before verification,
 * so floods of invalid tokens are limited too and never reach the database.
 *
 * @example
 * ```ts
 * await app.register(rateLimitPlugin, { requestsPerSecond: 50, burst: 200 });
 * app.rateLimit(request); // in a route's onRequest hook
 * ```
 */
export const rateLimitPlugin = globalPlugin<RateLimitPluginOptions>(
  "jobsight-rate-limit",
  async (app, options) => {
    const enabled = options.enabled ?? true;
    const buckets = new TokenBuckets({
      ratePerSecond: options.requestsPerSecond ?? 50,
      capacity: options.burst ?? 200,
    });
    const sweep = setInterval(() => buckets.sweep(), 60_000);
    sweep.unref();
    app.addHook("onClose", async () => clearInterval(sweep));
    app.decorate("rateLimit", (request: FastifyRequest) => {
      if (!enabled) return;
      const token = bearerToken(request);
      const key = token ? `t:${hashApiToken(token)}` : `ip:${request.ip}`;
      const wait = buckets.take(key);
      if (wait > 0) throw new RateLimitedError(wait, "Too many requests for this token; slow down");
    });
  },
);
