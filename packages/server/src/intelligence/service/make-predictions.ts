import { randomUUID } from "node:crypto";
import type { Policy, Prediction, PredictionRequest, ResourcePrediction } from "@jobsight/schemas";
import { type AnswerCommon, AnswerJson } from "./answer-json.js";
import { linkKeyOf } from "./link-predictions.js";
import type { LiveFeatureState } from "./live-feature-state.js";
import { predictSpecs } from "./predict-specs.js";
import { type RecordedPrediction, type ScoredOutcome, scoredOutcome } from "./prediction-store.js";
import type { Engine, ServedModel } from "./served-model.js";
import type { ModeState } from "./shadow-mode.js";
import { type RoundingOptions, schedulerRounding, toWireResource, withPolicy } from "./wire-prediction.js";

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
  const shadow = ctx.mode.mode === "shadow";
  const common: AnswerCommon = {
    createdAt: ctx.now.toISOString(),
    mode: ctx.mode.mode,
    modelVersion: version,
  };
  if (ctx.mode.shadowUntil) common.shadowUntil = ctx.mode.shadowUntil;
  const notice = shadow
    ? shadowNotice(ctx.mode, version)
    : !ctx.served
      ? "No model has been trained on this site's jobs yet: every resource is insufficient_evidence."
      : undefined;
  if (notice !== undefined) common.notice = notice;
  const json = new AnswerJson(common);
  // The granularity depends only on the job's scheduler: made once per batch, not per job.
  const slurm = schedulerRounding("slurm", ctx.rounding);
  const kubernetes = schedulerRounding("kubernetes", ctx.rounding);
  // Loops rather than closures per request: a batch makes thousands of these.
  const out: RecordedPrediction[] = new Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const request = requests[i];
    const spec = request.spec;
    const rounding = spec.scheduler === "kubernetes" ? kubernetes : slurm;
    const outcomes = raw[i];
    const wire: ResourcePrediction[] = new Array(outcomes.length);
    const recommendations: ScoredOutcome[] = new Array(outcomes.length);
    for (let k = 0; k < outcomes.length; k++) {
      wire[k] = toWireResource(outcomes[k], spec, rounding.granularity);
      recommendations[k] = scoredOutcome(wire[k]);
    }
    const resources = withPolicy(wire, spec, ctx.policy, ctx.mode.mode, rounding.options);
    // Serialised once: the record stores this text, and a live answer sends it.
    const resourcesJson = JSON.stringify(resources);
    const answer: Prediction = {
      id: randomUUID(),
      createdAt: common.createdAt,
      mode: common.mode,
      modelVersion: version,
      cluster: spec.cluster,
      user: spec.user,
      resources: shadow ? [] : resources,
    };
    if (common.shadowUntil !== undefined) answer.shadowUntil = common.shadowUntil;
    if (notice !== undefined) answer.notice = notice;
    json.remember(answer, shadow ? "[]" : resourcesJson);
    const recorded: RecordedPrediction = {
      answer,
      resources,
      resourcesJson,
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
