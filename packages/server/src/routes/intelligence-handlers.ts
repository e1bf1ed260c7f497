import type { IntelligenceService } from "../intelligence/service/intelligence-service.js";
import { diagnosisRoutes } from "./intelligence-diagnosis.js";
import { policyRoutes } from "./intelligence-policy.js";
import { predictionRoutes } from "./intelligence-predictions.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteHandlers } from "./route-handler.js";

/**
 * Every intelligence-plane operation of the route table: predictions, accuracy, policy and
 * diagnosis, served by one {@link IntelligenceService}.
 *
 * @example
 * ```ts
 * const service = new IntelligenceService({ storage, objectStore });
 * await service.start();
 * const app = await buildApp({ config, storage, objectStore, handlers: (deps) => intelligenceHandlers(deps, service) });
 * ```
 */
export function intelligenceHandlers(deps: RouteDeps, service: IntelligenceService): RouteHandlers {
  return {
    ...predictionRoutes(service),
    ...policyRoutes(service),
    ...diagnosisRoutes(deps, service),
  };
}
