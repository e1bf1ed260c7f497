import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyRequest } from "fastify";
import type { SqlPool } from "../../data-plane/storage/database.js";
import { RateLimitStore } from "../../data-plane/stores/rate-limit-store.js";
import { RateLimitedError } from "../../errors.js";
import { hashApiToken } from "../../platform/identity/api-token-hash.js";
import { bearerToken } from "./auth.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /**
     * The request counts behind the limits, shared by the replicas on the database: give it to
     * the OTLP receivers so one limiter serves both.
     */
    rateLimits: RateLimitStore;
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
  /**
   * The database the server replicas share, so that their requests count together; absent (and
   * no `store`): limits per process. @default undefined
   */
  pool?: SqlPool;
  /** Counts made by the caller (not closed with the app); overrides `pool`. @default a store over `pool` */
  store?: RateLimitStore;
};

/** The key of a request's budget: its bearer token's hash (verified or not), else its client IP. */
export function rateLimitKey(request: FastifyRequest): string {
  const token = bearerToken(request);
  return token ? `t:${hashApiToken(token)}` : `ip:${request.ip}`;
}

/**
 * Per-token request rate limits (per client IP for requests without a token) with
 * `@fastify/rate-limit`, answered with 429, a `Retry-After` header and `retryAfterSeconds`
 * ({@link RateLimitedError} through the error handler). Keyed by the token's hash before
 * verification, so floods of invalid tokens are limited too and never reach the database.
 *
 * The bucket options map to the plugin's window: `max = burst` and `timeWindow = burst /
 * requestsPerSecond` seconds, the same burst and average rate; the store refills a key's budget
 * continuously at that rate (see `RateLimitStore`), and with `pool` counts the requests of every
 * replica on the database together. Routes opt in, before authentication, with the plugin's hook:
 * `onRequest: [app.rateLimit(), …]` (without limits it lets everything through).
 *
 * @example
 * ```ts
 * await app.register(rateLimitPlugin, { requestsPerSecond: 50, burst: 200, pool: app.storage.pool });
 * app.get("/v1/jobs", { onRequest: [app.rateLimit(), authenticate] }, handler);
 * ```
 */
export const rateLimitPlugin = globalPlugin<RateLimitPluginOptions>(
  "jobsight-rate-limit",
  async (app, options) => {
    const store =
      options.store ??
      new RateLimitStore({
        ...(options.pool ? { pool: options.pool } : {}),
        log: app.log.child({ component: "rate-limit" }),
      });
    app.decorate("rateLimits", store);
    // Counts are stored before the pool closes: preClose runs before any onClose hook.
    if (!options.store) app.addHook("preClose", async () => store.close());
    if (options.enabled === false) {
      app.decorate("rateLimit", () => async () => {});
      return;
    }
    const burst = options.burst ?? 200;
    const requestsPerSecond = options.requestsPerSecond ?? 50;
    await app.register(fastifyRateLimit, {
      global: false,
      store: store.asPluginStore(),
      max: burst,
      timeWindow: (burst / requestsPerSecond) * 1000,
      keyGenerator: rateLimitKey,
      errorResponseBuilder: (_request, context) =>
        new RateLimitedError(context.ttl / 1000, "Too many requests for this token; slow down"),
      // The error handler writes Retry-After; the answers carry no other rate-limit headers.
      addHeaders: {
        "x-ratelimit-limit": false,
        "x-ratelimit-remaining": false,
        "x-ratelimit-reset": false,
        "retry-after": false,
      },
      addHeadersOnExceeding: {
        "x-ratelimit-limit": false,
        "x-ratelimit-remaining": false,
        "x-ratelimit-reset": false,
      },
    });
  },
);
