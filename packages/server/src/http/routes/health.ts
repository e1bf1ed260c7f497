import type { LicenceStatus } from "../../platform/licence/licence.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteHandlers } from "./route-handler.js";

const CHECK_TIMEOUT_MS = 3000;

/** The intelligence plane's model, as readiness sees it: ready, and what to report. */
export type ModelReadiness = { ready: boolean; detail: string };

/** Options of {@link healthRoutes}. */
export type HealthRoutesOptions = {
  /** The model check of `/readyz`; absent (intelligence disabled): no model check. @default undefined */
  model?: () => ModelReadiness;
};

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
 * `/healthz` (liveness: the process and its event loop run; touches nothing) and `/readyz`
 * (PostgreSQL and the object store answer, and the model is loaded when intelligence is on; 503
 * naming the failing checks otherwise, so a load balancer stops sending traffic meanwhile).
 */
export function healthRoutes(deps: RouteDeps, options: HealthRoutesOptions = {}): RouteHandlers {
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
      let modelReady = true;
      if (options.model) {
        const model = options.model();
        modelReady = model.ready;
        checks.model = model.detail;
      }
      checks.storage = deps.storage.flavour;
      const ok = checks.postgres === "ok" && checks.objectStore === "ok" && modelReady;
      if (ok) return { status: "ok", version: deps.version, checks };
      // Sent here: the route wrapper would answer with the route's success status otherwise.
      return reply
        .code(503)
        .header("retry-after", "5")
        .send({ status: "unavailable", version: deps.version, checks });
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
