import type { HistoryJob } from "../history-job.js";
import { isCensored, type ResourceSpec } from "../resources.js";
import { FeatureBuilder, type FeatureBuilderOptions } from "./feature-builder.js";
import { FEATURE_NAMES, groupFeatureIndex } from "./group-features.js";
import { GROUP_LEVELS } from "./group-keys.js";
import { replayInSubmitOrder } from "./replay.js";

/**
 * Feature rows of every job of a history for one resource, each computed at the job's submit time
 * from the jobs that had ended by then, next to what the job then did.
 */
export type FeatureTable = {
  resource: ResourceSpec["name"];
  featureNames: string[];
  rows: number;
  /** Row-major float32 features, `x[i * featureNames.length + f]`. */
  x: Float32Array;
  /** log(target), NaN when the job has no usable target. */
  y: Float64Array;
  /** 1 when the job was killed: `y` is a lower bound. */
  censored: Uint8Array;
  /** log(request), NaN when the job requested nothing. */
  logRequest: Float64Array;
  /** The request itself (NaN: none): a value capped at it must equal it, not `exp(log(request))`. */
  request: Float64Array;
  submit: Float64Array;
  end: Float64Array;
  /** Completed jobs of the same user that had ended before submission. */
  userJobs: Int32Array;
  /** Evidence: index into GROUP_LEVELS of the most specific group with ≥ 3 jobs (−1: none). */
  evidenceLevel: Int8Array;
  evidenceJobs: Int32Array;
  evidenceCensored: Int32Array;
  evidenceSince: Float64Array;
};

/** Options of {@link buildFeatureTable}. */
export type BuildFeatureTableOptions = FeatureBuilderOptions & {
  /**
   * A table of the same jobs the caller is done with, whose arrays are overwritten rather than
   * allocated again (tables of several resources, one after the other). @default none
   */
  reuse?: FeatureTable;
};

/**
 * Computes the {@link FeatureTable} of `jobs` (sorted by submit time) in one online pass.
 *
 * @example
 * ```ts
 * const table = buildFeatureTable(jobs, resourceSpec("walltime"));
 * ```
 */
export function buildFeatureTable(
  jobs: readonly HistoryJob[],
  spec: ResourceSpec,
  options: BuildFeatureTableOptions = {},
): FeatureTable {
  const n = jobs.length;
  const F = FEATURE_NAMES.length;
  const old = options.reuse;
  const t: FeatureTable =
    old?.rows === n && old.x.length === n * F
      ? reset(old, spec.name)
      : {
          resource: spec.name,
          featureNames: FEATURE_NAMES,
          rows: n,
          x: new Float32Array(n * F),
          y: new Float64Array(n),
          censored: new Uint8Array(n),
          logRequest: new Float64Array(n),
          request: new Float64Array(n),
          submit: new Float64Array(n),
          end: new Float64Array(n),
          userJobs: new Int32Array(n),
          evidenceLevel: new Int8Array(n),
          evidenceJobs: new Int32Array(n),
          evidenceCensored: new Int32Array(n),
          evidenceSince: new Float64Array(n),
        };
  const builder = new FeatureBuilder(spec, options);
  const userCountCol = groupFeatureIndex("user", "count");
  replayInSubmitOrder(
    jobs,
    (job) => builder.observeEnded(job),
    (job, i) => {
      builder.features(job, t.x.subarray(i * F, (i + 1) * F));
      const target = spec.target(job);
      const req = spec.request(job);
      t.y[i] = target === undefined ? Number.NaN : Math.log(target);
      t.censored[i] = isCensored(job) ? 1 : 0;
      t.logRequest[i] = req === undefined ? Number.NaN : Math.log(req);
      t.request[i] = req === undefined ? Number.NaN : req;
      t.submit[i] = job.submitTime;
      t.end[i] = job.endTime;
      t.userJobs[i] = Math.round(Math.expm1(t.x[i * F + userCountCol]));
      const s = builder.summary(job, 3);
      t.evidenceLevel[i] = s ? GROUP_LEVELS.indexOf(s.level) : -1;
      t.evidenceJobs[i] = s ? s.jobs : 0;
      t.evidenceCensored[i] = s ? s.censoredJobs : 0;
      t.evidenceSince[i] = s ? s.since : Number.NaN;
    },
  );
  return t;
}

// Every array back to what a new one holds, so a reused table is the table a fresh one would be.
function reset(t: FeatureTable, resource: FeatureTable["resource"]): FeatureTable {
  for (const a of [t.x, t.y, t.censored, t.logRequest, t.request, t.submit, t.end, t.userJobs]) a.fill(0);
  for (const a of [t.evidenceLevel, t.evidenceJobs, t.evidenceCensored, t.evidenceSince]) a.fill(0);
  t.resource = resource;
  return t;
}
