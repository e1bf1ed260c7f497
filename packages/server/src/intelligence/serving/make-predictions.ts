import { randomUUID } from "node:crypto";
import type { Policy, Prediction, PredictionRequest, ResourcePrediction } from "@jobsight/schemas";
import {
  type RecordedPrediction,
  type ScoredOutcome,
  scoredOutcome,
} from "../../data-plane/stores/prediction-store.js";
import type { ModeState } from "../accuracy/shadow-mode.js";
import { linkKeyOf } from "../recording/link-predictions.js";
import type { Engine, ServedModel } from "../registry/served-model.js";
import { type AnswerCommon, AnswerJson } from "./answer-json.js";
import type { LiveFeatureState } from "./live-feature-state.js";
import { predictSpecs } from "./predict-specs.js";
import {
  kubernetesRounding,
  type RoundingOptions,
  type SchedulerRounding,
  schedulerRounding,
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

/** What every request of a batch for the same job shares: made once, reused by the later ones. */
type Made = {
  resources: ResourcePrediction[];
  resourcesJson: string;
  recommendations: ScoredOutcome[];
  recommendationsJson: string;
  linkKey: string;
  /** The answers' JSON after the id (see {@link AnswerJson.tail}). */
  answerTail: Buffer;
};

/**
 * What a batch made so far, by request (spec and resources asked for, as JSON), shared by the
 * slices of one batch: a prediction is a function of the request, the model, the live state and
 * the moment, which one batch shares. Job arrays and sweeps ask for many jobs with the same spec:
 * each is predicted, rounded, policed and serialised once. Bounded (1,024 jobs) so that a batch
 * of distinct jobs does not keep every outcome it made until it ends.
 */
export type PredictionMemo = Map<string, Made>;

const MEMO_MAX = 1024;

function requestKey(request: PredictionRequest, specJson: string): string {
  return request.resources === undefined ? specJson : `${request.resources.join(",")}\u0000${specJson}`;
}

/**
 * What a window of requests shares once their distinct jobs are predicted ({@link predictDistinctJobs}):
 * per request its spec's JSON and its key, per key what was made, and what every answer has.
 */
export type DistinctJobOutcomes = {
  specJsons: string[];
  keys: string[];
  made: Map<string, Made>;
  common: AnswerCommon;
  shadow: boolean;
};

/**
 * The work of a batch that depends on the job and not on the request: each distinct job of
 * `requests` not in `memo` is predicted (one model run for all of them), rounded for the
 * scheduler, policed and serialised; the rest comes from the memo. {@link answersAndRecords}
 * then makes each request's answer and record from the plan, a few at a time if the caller likes.
 *
 * @example
 * ```ts
 * const plan = await predictDistinctJobs(requests, context, memo);
 * const recorded = answersAndRecords(requests, plan, context, 0, requests.length);
 * ```
 */
export async function predictDistinctJobs(
  requests: readonly PredictionRequest[],
  ctx: PredictionContext,
  memo: PredictionMemo = new Map(),
): Promise<DistinctJobOutcomes> {
  // The spec's JSON is both the key and what the record stores.
  const specJsons: string[] = new Array(requests.length);
  const keys: string[] = new Array(requests.length);
  const todo: number[] = [];
  const firstOf = new Set<string>();
  // What this call answers from, hits of the memo included: the memo may be cleared below to
  // make room, and must not take a hit away before its request is answered.
  const made = new Map<string, Made>();
  for (let i = 0; i < requests.length; i++) {
    specJsons[i] = JSON.stringify(requests[i].spec);
    const key = requestKey(requests[i], specJsons[i]);
    keys[i] = key;
    if (made.has(key) || firstOf.has(key)) continue;
    const hit = memo.get(key);
    if (hit) made.set(key, hit);
    else {
      firstOf.add(key);
      todo.push(i);
    }
  }
  const raw = await predictSpecs(
    todo.map((i) => requests[i]),
    ctx.state,
    ctx.served,
    ctx.now.getTime() / 1000,
    ctx.engine,
  );
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
  // The granularity depends only on the job's scheduler (and, for Kubernetes, the step its cores
  // were written in): made once per batch and step, not per job.
  const slurm = schedulerRounding("slurm", ctx.rounding);
  const kubernetes = new Map<number, SchedulerRounding>();
  for (let t = 0; t < todo.length; t++) {
    const spec = requests[todo[t]].spec;
    const rounding =
      spec.scheduler === "kubernetes" ? kubernetesRounding(spec, ctx.rounding ?? {}, kubernetes) : slurm;
    const outcomes = raw[t];
    const wire: ResourcePrediction[] = new Array(outcomes.length);
    const recommendations: ScoredOutcome[] = new Array(outcomes.length);
    for (let k = 0; k < outcomes.length; k++) {
      wire[k] = toWireResource(outcomes[k], spec, rounding.granularity);
      recommendations[k] = scoredOutcome(wire[k]);
    }
    const resources = withPolicy(wire, spec, ctx.policy, ctx.mode.mode, rounding.options);
    // Serialised once: the record stores this text, and a live answer sends it.
    const resourcesJson = JSON.stringify(resources);
    const one: Made = {
      resources,
      resourcesJson,
      recommendations,
      recommendationsJson: JSON.stringify(recommendations),
      linkKey: linkKeyOf(spec),
      answerTail: json.tail(spec.cluster, spec.user, shadow ? "[]" : resourcesJson),
    };
    made.set(keys[todo[t]], one);
    if (memo.size >= MEMO_MAX) memo.clear();
    memo.set(keys[todo[t]], one);
  }
  return { specJsons, keys, made, common, shadow };
}

/**
 * What to record and answer for `requests[from, to)` of a {@link predictDistinctJobs} plan, in order:
 * each request gets an id, an answer (with no resources in shadow mode, where only the record
 * keeps them) and a record of its own, sharing its job's outcome and bytes with the others.
 *
 * @example
 * ```ts
 * recorder.record(answersAndRecords(requests, plan, context, 0, 128));
 * ```
 */
export function answersAndRecords(
  requests: readonly PredictionRequest[],
  plan: DistinctJobOutcomes,
  ctx: PredictionContext,
  from: number,
  to: number,
): RecordedPrediction[] {
  const { common, shadow } = plan;
  // Loops rather than closures per request: a batch makes thousands of these.
  const out: RecordedPrediction[] = new Array(to - from);
  for (let i = from; i < to; i++) {
    const request = requests[i];
    const spec = request.spec;
    const m = plan.made.get(plan.keys[i]) as Made;
    const answer: Prediction = {
      id: randomUUID(),
      createdAt: common.createdAt,
      mode: common.mode,
      modelVersion: common.modelVersion,
      cluster: spec.cluster,
      user: spec.user,
      resources: shadow ? [] : m.resources,
    };
    if (common.shadowUntil !== undefined) answer.shadowUntil = common.shadowUntil;
    if (common.notice !== undefined) answer.notice = common.notice;
    const recorded: RecordedPrediction = {
      answer,
      resources: m.resources,
      resourcesJson: m.resourcesJson,
      recommendations: m.recommendations,
      recommendationsJson: m.recommendationsJson,
      spec,
      specJson: plan.specJsons[i],
      linkKey: m.linkKey,
      requestedBy: ctx.requestedBy,
      answerTail: m.answerTail,
    };
    if (request.idempotencyKey) recorded.idempotencyKey = request.idempotencyKey;
    recorded.sameRowAs = m;
    out[i - from] = recorded;
  }
  return out;
}

/**
 * Predicts a batch of requests and returns, in order, what to record and answer: the model's
 * outcome rounded for the scheduler, the policy applied to it, and the answer (with no
 * resources in shadow mode, where only the record keeps them). Requests with the same spec get
 * the same outcome (made once, see {@link PredictionMemo}), each with an id of its own.
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
  memo: PredictionMemo = new Map(),
): Promise<RecordedPrediction[]> {
  const plan = await predictDistinctJobs(requests, ctx, memo);
  return answersAndRecords(requests, plan, ctx, 0, requests.length);
}
