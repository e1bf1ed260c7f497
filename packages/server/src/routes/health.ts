import type { RouteDeps } from "./route-deps.js";
import type { RouteHandlers } from "./route-handler.js";

const CHECK_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/**
 * `/healthz` (the process is alive) and `/readyz` (PostgreSQL and the object store answer; 503
 * otherwise, so a load balancer stops sending traffic while storage is down).
 */
export function healthRoutes(deps: RouteDeps): RouteHandlers {
  return {
    getHealth: async () => ({ status: "ok", version: deps.version }),
    getReadiness: async ({ reply }) => {
      const checks: Record<string, string> = {};
      const probe = async (name: string, check: () => Promise<void>) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          checks[name] = "ok";
        } catch (error) {
          checks[name] = `unavailable: ${(error as Error).message}`.slice(0, 200);
        }
      };
      await Promise.all([
        probe("postgres", () => deps.storage.ping()),
        probe("objectStore", () => deps.objectStore.check()),
      ]);
      checks.storage = deps.storage.flavour;
      const ok = checks.postgres === "ok" && checks.objectStore === "ok";
      if (!ok) reply.code(503).header("retry-after", "5");
      return { status: ok ? "ok" : "unavailable", version: deps.version, checks };
    },
  };
}
