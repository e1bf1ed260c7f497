import type { LicenceStatus } from "../../platform/licence/licence.js";
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
    // The licence never makes the server unhealthy (it keeps collecting whatever the licence
    // says); its state and reason are reported for operators and the control plane.
    getHealth: async () => {
      const licence = deps.licence?.();
      if (!licence) return { status: "ok", version: deps.version };
      return { status: "ok", version: deps.version, licence: licence.state, checks: licenceChecks(licence) };
    },
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

function licenceChecks(status: LicenceStatus): Record<string, string> {
  const checks: Record<string, string> = { licence: status.reason ?? status.state };
  if (status.licence) {
    checks.licenceId = status.licence.licenceId;
    checks.licenceExpiresAt = status.licence.expiresAt;
    checks.licenceMaxNodes = String(status.licence.maxNodes);
  }
  if (status.graceEndsAt) checks.licenceGraceEndsAt = status.graceEndsAt;
  if (status.overNodeLimit) checks.licenceOverNodeLimit = "true";
  return checks;
}
