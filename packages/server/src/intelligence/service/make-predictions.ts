import { randomUUID } from "node:crypto";
import type { Policy, Prediction, PredictionRequest, ResourcePrediction } from "@jobsight/schemas";
import { linkKeyOf } from "./link-predictions.js";
import type { LiveFeatureState } from "./live-feature-state.js";
import { predictSpecs } from "./predict-specs.js";
import { type RecordedPrediction, type ScoredOutcome, scoredOutcome } from "./prediction-store.js";
import type { Engine, ServedModel } from "./served-model.js";
import type { ModeState } from "./shadow-mode.js";
import {
  granularityFor,
  granularityOptionsFor,
  type RoundingOptions,
  toWireResource,
  withPolicy,
} from "./wire-prediction.js";

/** What a batch of predictions is made with. */
export type PredictionContext = {
  state: LiveFeatureState;
  served: ServedModel | undefined;
  policy: Policy;
  mode: ModeState;
  now: Date;
  engine: Engine;
  rounding?: RoundingOptions;
  /** The user of the token that asks. */
  requestedBy: string;
};

function shadowNotice(mode: ModeState, version: string): string {
  const until = mode.shadowUntil ? ` until ${mode.shadowUntil}` : "";
  return `Shadow mode${until}: this prediction was recorded (model ${version}) for the accuracy report; no recommendation is shown and nothing is applied.`;
}

/**
 * Predicts a batch of requests and returns, in order, what to record and answer: the model's
 * outcome rounded for the scheduler, the policy applied to it, and the answer (with no
 * resources in shadow mode, where only the record keeps them).
 *
 * @example
 * ```ts
 * const recorded = await makePredictions([{ spec }], context);
 * recorder.record(recorded);
 * return recorded[0].answer;
 * ```
 */
export async function makePredictions(
  requests: readonly PredictionRequest[],
  ctx: PredictionContext,
): Promise<RecordedPrediction[]> {
  const raw = await predictSpecs(requests, ctx.state, ctx.served, ctx.now.getTime() / 1000, ctx.engine);
  const version = ctx.served?.version ?? "none";
  const createdAt = ctx.now.toISOString();
  const shadow = ctx.mode.mode === "shadow";
  const notice = shadow
    ? shadowNotice(ctx.mode, version)
    : !ctx.served
      ? "No model has been trained on this site's jobs yet: every resource is insufficient_evidence."
      : undefined;
  // Loops rather than closures per request: a batch makes thousands of these.
  const out: RecordedPrediction[] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i];
    const spec = request.spec;
    const granularity = granularityFor(spec, ctx.rounding);
    const outcomes = raw[i];
    const wire: ResourcePrediction[] = new Array(outcomes.length);
    const recommendations: ScoredOutcome[] = new Array(outcomes.length);
    for (let k = 0; k < outcomes.length; k++) {
      wire[k] = toWireResource(outcomes[k], spec, granularity);
      recommendations[k] = scoredOutcome(wire[k]);
    }
    const resources = withPolicy(
      wire,
      spec,
      ctx.policy,
      ctx.mode.mode,
      granularityOptionsFor(spec, ctx.rounding),
    );
    const answer: Prediction = {
      id: randomUUID(),
      createdAt,
      mode: ctx.mode.mode,
      modelVersion: version,
      cluster: spec.cluster,
      user: spec.user,
      resources: shadow ? [] : resources,
    };
    if (ctx.mode.shadowUntil) answer.shadowUntil = ctx.mode.shadowUntil;
    if (notice !== undefined) answer.notice = notice;
    const recorded: RecordedPrediction = {
      answer,
      resources,
      recommendations,
      spec,
      linkKey: linkKeyOf(spec),
      requestedBy: ctx.requestedBy,
    };
    if (request.idempotencyKey) recorded.idempotencyKey = request.idempotencyKey;
    out[i] = recorded;
  }
  return out;
}
