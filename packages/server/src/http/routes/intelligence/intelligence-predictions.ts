import type { JobSpec, PredictionBatchRequest, PredictionRequest } from "@jobsight/schemas";
import { ForbiddenError, NotFoundError } from "../../../errors.js";
import type { IntelligenceService } from "../../../intelligence/intelligence-service.js";
import { answerText, BatchAnswerJson } from "../../../intelligence/serving/answer-json.js";
import type { Principal } from "../../../platform/identity/principal.js";
import { accessScope, inScope, outOfScope } from "../access.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";

/**
 * Refuses specs the caller may not ask about: a researcher only for their own jobs, a token bound
 * to a cluster only for that cluster. Every offending field is listed.
 */
function assertMayPredict(
  principal: Principal | undefined,
  specs: readonly JobSpec[],
  path: (i: number) => string,
) {
  const errors = outOfScope(accessScope(principal), specs, path);
  if (errors.length > 0) {
    throw new ForbiddenError(
      `This token may not ask for ${specs.length === 1 ? "this prediction" : "these predictions"}`,
      errors.slice(0, 100),
    );
  }
}

// Answers go out as the JSON text written when they were made (`answer-json.ts`), with the
// content type Fastify gives a serialised object.
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Predictions (one or a batch, recorded, shadow mode first), reading them back, and the accuracy
 * report of what was recorded against what the jobs then did.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...predictionRoutes(service) });
 * ```
 */
export function predictionRoutes(service: IntelligenceService): RouteHandlers {
  return {
    createPrediction: async ({ body, principal, reply }: RouteContext<PredictionRequest>) => {
      assertMayPredict(principal, [body.spec], () => "/spec");
      const [prediction] = await service.predict([body], principal?.user ?? "unknown");
      reply.type(JSON_TYPE);
      return answerText(prediction);
    },
    createPredictionBatch: async ({ body, principal, reply }: RouteContext<PredictionBatchRequest>) => {
      assertMayPredict(
        principal,
        body.requests.map((r) => r.spec),
        (i) => `/requests/${i}/spec`,
      );
      const batch = new BatchAnswerJson(body.requests.length);
      await service.predictEach(body.requests, principal?.user ?? "unknown", (a, tail) => batch.add(a, tail));
      reply.type(JSON_TYPE);
      const out = batch.finish();
      // Once sent (handed to the socket): a connection closed before keeps its buffer to itself.
      reply.raw.once("finish", () => out.release());
      return out.bytes();
    },
    getPrediction: async ({ params, principal }: RouteContext<unknown, unknown, { id: string }>) => {
      const scope = accessScope(principal);
      const prediction = await service.getPrediction(params.id);
      // Someone else's prediction is as absent as one that does not exist.
      if (!prediction || !inScope(scope, prediction)) {
        throw new NotFoundError(`Prediction ${params.id} not found`);
      }
      return prediction;
    },
    getAccuracy: async ({ query, principal }: RouteContext<unknown, { cluster?: string }>) =>
      service.accuracy(accessScope(principal, query.cluster).cluster),
  };
}
