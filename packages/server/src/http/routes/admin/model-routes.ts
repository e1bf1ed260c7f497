import type { ModelBacktest, ModelChange, ModelStatus, ModelVersion, ResourceName } from "@jobsight/schemas";
import type { IntelligenceService } from "../../../intelligence/intelligence-service.js";
import type { ModelSwitch } from "../../../intelligence/registry/model-promotion.js";
import type { ModelRecord } from "../../../intelligence/registry/model-registry.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";
import { assertSiteWide } from "./site-wide-admin.js";

type Service = Pick<IntelligenceService, "models" | "promote" | "rollbackModel" | "activeVersion">;

const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x) && x >= 0;

// The stored figures and decision are the intelligence plane's JSON as it was when the model was
// trained: only well-formed values go on the wire.
function toWireModel(m: ModelRecord): ModelVersion {
  const backtest: Partial<Record<ResourceName, ModelBacktest>> = {};
  for (const [resource, figures] of Object.entries(m.backtest ?? {})) {
    if (!figures || !finite(figures.evaluated)) continue;
    const wire: ModelBacktest = { evaluated: Math.round(figures.evaluated) };
    if (finite(figures.coverage)) wire.coverage = figures.coverage;
    if (finite(figures.underPredictionRate)) wire.underPredictionRate = figures.underPredictionRate;
    if (finite(figures.slack)) wire.slack = figures.slack;
    backtest[resource as ResourceName] = wire;
  }
  const decision = m.decision ?? { accepted: undefined, reasons: [] };
  return {
    version: m.version,
    status: m.status,
    createdAt: m.createdAt,
    ...(m.activatedAt ? { activatedAt: m.activatedAt } : {}),
    trigger: m.trigger,
    resources: m.resources,
    trainingJobs: m.trainingJobs,
    ...(m.dataStart ? { dataStart: m.dataStart } : {}),
    ...(m.dataEnd ? { dataEnd: m.dataEnd } : {}),
    ...(finite(m.trainSeconds) ? { trainSeconds: m.trainSeconds } : {}),
    ...(typeof decision.accepted === "boolean" ? { accepted: decision.accepted } : {}),
    reasons: Array.isArray(decision.reasons) ? decision.reasons.filter((r) => typeof r === "string") : [],
    backtest,
  };
}

function toWireChange(change: ModelSwitch, service: Service): ModelChange {
  return {
    previousVersion: change.previous ?? null,
    activeVersion: change.active,
    servedVersion: service.activeVersion ?? null,
  };
}

/**
 * `GET /v1/models` (platform and admin): the registry's versions and the one this server serves.
 * `POST /v1/models/{version}/promote` and `POST /v1/models/rollback` (site-wide admin) change the
 * version in service for every replica: this one serves it at once, the others when PostgreSQL
 * tells them (within a second; at the latest their refresh interval). A version that cannot be served is refused (409 `MODEL_NOT_SERVABLE`) and
 * nothing changes.
 */
export function modelRoutes(service: Service): RouteHandlers {
  return {
    getModelStatus: async () => {
      const models = await service.models();
      const answer: ModelStatus = {
        activeVersion: models.find((m) => m.status === "active")?.version ?? null,
        servedVersion: service.activeVersion ?? null,
        models: models.map(toWireModel),
      };
      return answer;
    },
    promoteModel: async ({
      params,
      principal,
      request,
    }: RouteContext<unknown, unknown, { version: string }>) => {
      assertSiteWide(principal);
      const change = await service.promote(params.version);
      request.log.info({ ...change, by: principal.user }, "model promoted");
      return toWireChange(change, service);
    },
    rollbackModel: async ({ principal, request }: RouteContext) => {
      assertSiteWide(principal);
      const change = await service.rollbackModel();
      request.log.info({ ...change, by: principal.user }, "model rolled back");
      return toWireChange(change, service);
    },
  };
}
