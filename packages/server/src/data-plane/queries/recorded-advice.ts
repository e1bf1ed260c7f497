import type {
  InsufficientEvidence,
  PolicyAdjustment,
  ResourcePrediction,
  ResourceRecommendation,
} from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** Which recorded predictions to read: one job's submission identity over a period. */
export type RecordedAdviceQuery = {
  cluster: string;
  /** The identity predictions were recorded under (`linkKeyOf` of the job's spec). */
  linkKey: string;
  from: Date;
  to: Date;
  /** Read shadow-mode predictions too (nobody was shown those). @default false */
  includeShadow?: boolean;
  /** Most groups read, the newest kept. @default 500 */
  limit?: number;
};

/** One resource of a recorded answer, as served after the policy (evidence apart). */
export type RecordedResource = {
  resource: ResourcePrediction["resource"];
  status: ResourcePrediction["status"];
  unit?: ResourceRecommendation["unit"];
  value?: number;
  low?: number;
  high?: number;
  confidence?: number;
  reasonCode?: InsufficientEvidence["reasonCode"];
  reason?: string;
  adjustments?: PolicyAdjustment[];
};

/** The past jobs one resource's answer rested on. */
export type RecordedEvidence = {
  resource: ResourcePrediction["resource"];
  group?: string;
  jobs?: number;
};

/**
 * Consecutive predictions of one model version that gave the same answer: when it was asked
 * first and last, how often, and the evidence of its first and last prediction. A version whose
 * answer changed over time (new jobs of the group ended) has one group per answer.
 */
export type AdviceGroup = {
  modelVersion: string;
  mode: "shadow" | "live";
  firstAsked: string;
  lastAsked: string;
  asked: number;
  resources: RecordedResource[];
  firstEvidence: RecordedEvidence[];
  lastEvidence: RecordedEvidence[];
};

/** A model version's row of the registry: when it was trained, and on what. */
export type AdvisingModelRow = {
  version: string;
  trainedAt: string;
  trainingJobs: number;
  dataStart?: string;
  dataEnd?: string;
};

/** The advice recorded for one job, oldest group first, with the models that gave it. */
export type RecordedAdvice = {
  groups: AdviceGroup[];
  /** Predictions counted in `groups`. */
  asked: number;
  models: AdvisingModelRow[];
  /** Older groups of the period were left out (`limit`). */
  truncated: boolean;
};

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Each prediction's answer reduced to what the advice is (evidence apart, so that one more past
// job does not split a group), then runs of the same version, mode and answer numbered in time.
// No index leads to link_key (0005 dropped it to keep recording cheap): the period bounds the
// scan through the BRIN index on created_at.
const GROUPS = `
WITH asked AS (
  SELECT p.id, p.created_at, p.model_version, p.mode,
    coalesce((
      SELECT json_agg(json_strip_nulls(json_build_object(
          'resource', r->>'resource', 'status', r->>'status', 'unit', r->>'unit',
          'value', r->'value', 'low', r->'low', 'high', r->'high', 'confidence', r->'confidence',
          'reasonCode', r->>'reasonCode', 'reason', r->>'reason', 'adjustments', r->'adjustments'))
        ORDER BY r->>'resource')
      FROM json_array_elements(p.resources::json) AS r), '[]')::text AS answer,
    coalesce((
      SELECT json_agg(json_strip_nulls(json_build_object(
          'resource', r->>'resource', 'group', r->'evidence'->>'group', 'jobs', r->'evidence'->'jobs'))
        ORDER BY r->>'resource')
      FROM json_array_elements(p.resources::json) AS r WHERE r->'evidence' IS NOT NULL), '[]')::text AS evidence
  FROM predictions p
  WHERE p.cluster = $1 AND p.link_key = $2 AND p.created_at >= $3 AND p.created_at <= $4
    AND (p.mode = 'live' OR $5::boolean)
), marked AS (
  SELECT *, CASE WHEN lag(model_version) OVER w = model_version AND lag(mode) OVER w = mode
      AND lag(answer) OVER w = answer THEN 0 ELSE 1 END AS starts
  FROM asked WINDOW w AS (ORDER BY created_at, id)
), numbered AS (
  SELECT *, sum(starts) OVER (ORDER BY created_at, id) AS run FROM marked
)
SELECT model_version, mode, answer::json AS resources, count(*)::int AS asked,
  ${ISO("min(created_at)")} AS first_asked, ${ISO("max(created_at)")} AS last_asked,
  (array_agg(evidence ORDER BY created_at, id))[1]::json AS first_evidence,
  (array_agg(evidence ORDER BY created_at DESC, id DESC))[1]::json AS last_evidence
FROM numbered
GROUP BY run, model_version, mode, answer
ORDER BY run DESC
LIMIT $6`;

const MODELS = `
SELECT version, ${ISO("created_at")} AS trained_at, training_jobs,
  ${ISO("data_start")} AS data_start, ${ISO("data_end")} AS data_end
FROM models WHERE version = ANY($1::text[])`;

type GroupRow = {
  model_version: string;
  mode: "shadow" | "live";
  resources: RecordedResource[];
  asked: number;
  first_asked: string;
  last_asked: string;
  first_evidence: RecordedEvidence[];
  last_evidence: RecordedEvidence[];
};

type ModelRow = {
  version: string;
  trained_at: string;
  training_jobs: number;
  data_start: string | null;
  data_end: string | null;
};

/**
 * The predictions recorded for one job's submission identity in a period, oldest first, as groups
 * of consecutive predictions of the same model version and answer (per resource: status, value,
 * range, confidence, reason and policy adjustments), with the registry's row of each version.
 *
 * @example
 * ```ts
 * const advice = await recordedAdvice(pool, { cluster: "hpc1", linkKey: linkKeyOf(job.spec), from, to });
 * advice.groups.map((g) => [g.modelVersion, g.asked]); // [["m-2", 3], ["m-3", 1]]
 * ```
 */
export async function recordedAdvice(pool: pg.Pool, q: RecordedAdviceQuery): Promise<RecordedAdvice> {
  const limit = q.limit ?? 500;
  const { rows } = await query<GroupRow>(pool, GROUPS, [
    q.cluster,
    q.linkKey,
    q.from,
    q.to,
    q.includeShadow ?? false,
    limit + 1,
  ]);
  const truncated = rows.length > limit;
  const groups = rows
    .slice(0, limit)
    .reverse()
    .map(
      (r): AdviceGroup => ({
        modelVersion: r.model_version,
        mode: r.mode,
        firstAsked: r.first_asked,
        lastAsked: r.last_asked,
        asked: r.asked,
        resources: r.resources,
        firstEvidence: r.first_evidence,
        lastEvidence: r.last_evidence,
      }),
    );
  const versions = [...new Set(groups.map((g) => g.modelVersion))];
  const models =
    versions.length === 0 ? [] : (await query<ModelRow>(pool, MODELS, [versions])).rows.map(toModel);
  return { groups, asked: groups.reduce((n, g) => n + g.asked, 0), models, truncated };
}

function toModel(r: ModelRow): AdvisingModelRow {
  const out: AdvisingModelRow = {
    version: r.version,
    trainedAt: r.trained_at,
    trainingJobs: r.training_jobs,
  };
  if (r.data_start) out.dataStart = r.data_start;
  if (r.data_end) out.dataEnd = r.data_end;
  return out;
}
