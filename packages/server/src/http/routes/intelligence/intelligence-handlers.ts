import { PolicyAuditStore } from "../../../data-plane/stores/policy-audit-store.js";
import type { IntelligenceService } from "../../../intelligence/intelligence-service.js";
import { modelRoutes } from "../admin/model-routes.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteHandlers } from "../route-handler.js";
import { schedulerHandlers } from "../scheduler-handlers.js";
import { adviceHistoryRoutes } from "./advice-history.js";
import { diagnosisRoutes } from "./intelligence-diagnosis.js";
import { policyRoutes } from "./intelligence-policy.js";
import { predictionRoutes } from "./intelligence-predictions.js";
import { policyAuditRoutes } from "./policy-audit.js";

/**
 * Every intelligence-plane operation of the route table: predictions, a job's advice history,
 * accuracy, policy (and its audit), diagnosis, the schedulers' admission webhook and SLURM
 * advice, and the model registry (status, promote, rollback), served by one {@link IntelligenceService}.
 *
 * @example
 * ```ts
 * const service = new IntelligenceService({ storage, objectStore });
 * await service.start();
 * const app = await buildApp({ config, storage, objectStore, handlers: (deps) => intelligenceHandlers(deps, service) });
 * ```
 */
export function intelligenceHandlers(deps: RouteDeps, service: IntelligenceService): RouteHandlers {
  const audit = new PolicyAuditStore(deps.storage.pool);
  return {
    ...predictionRoutes(service),
    ...adviceHistoryRoutes(deps),
    ...policyRoutes(service, deps.storage.pool),
    ...diagnosisRoutes(deps, service),
    ...policyAuditRoutes(audit),
    ...schedulerHandlers(service, { audit, ...(deps.holdSubmission ? { hold: deps.holdSubmission } : {}) }),
    ...modelRoutes(service),
  };
}
