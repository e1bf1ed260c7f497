import type { JobRecord } from "@jobsight/schemas";
import { recordedAdvice } from "../../../data-plane/queries/recorded-advice.js";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import { LINK_WINDOW, linkKeyOf } from "../../recording/link-predictions.js";

/** One resource of a job whose recorded advice was below what the job asked for. */
export type DigestEdit = {
  resource: "memory" | "cores" | "gpus" | "walltime";
  /** What the job asked for (bytes, cores, GPUs or seconds). */
  requested: number;
  /** What the advice recorded for its submission said, in the same unit. */
  advised: number;
};

/** The edits the advice of one submission asked for, and the model version it came from. */
export type SubmissionEdits = {
  /** Empty when no live advice was recorded for the submission, or it asked for no less. */
  edits: DigestEdit[];
  modelVersion?: string;
};

const DAY_MS = 86_400_000;
/** How far back the advice of a submission is looked for (as `GET /v1/jobs/{id}/advice-history`). */
const ADVICE_DAYS = 30;

const REQUESTED: Record<DigestEdit["resource"], (job: JobRecord) => number | undefined> = {
  memory: (job) => job.spec.requested.memoryBytes,
  cores: (job) => job.spec.requested.cores,
  gpus: (job) => job.spec.requested.gpus,
  walltime: (job) => job.spec.requested.walltimeSeconds,
};

/**
 * The edits that would have saved a job's waste: each resource the latest live advice recorded
 * for its submission (up to the submission: what the user was, or could have been, shown) put
 * below what the job asked for. The weekly digest lists them; the waste report adds up what they
 * would have saved.
 *
 * @example
 * ```ts
 * const { edits } = await submissionEdits(storage, job);
 * edits; // [{ resource: "memory", requested: 68719476736, advised: 12884901888 }]
 * ```
 */
export async function submissionEdits(
  storage: Pick<DataPlaneStorage, "pool">,
  job: JobRecord,
): Promise<SubmissionEdits> {
  const submitted = Date.parse(job.submittedAt);
  const advice = await recordedAdvice(storage.pool, {
    cluster: job.cluster,
    linkKey: linkKeyOf(job.spec),
    from: new Date(submitted - ADVICE_DAYS * DAY_MS),
    to: new Date(submitted + LINK_WINDOW.skewSeconds * 1000),
    limit: 1,
  });
  const latest = advice.groups.at(-1);
  if (!latest) return { edits: [] };
  const edits: DigestEdit[] = [];
  for (const r of latest.resources) {
    if (r.status !== "ok" || r.value === undefined || !(r.resource in REQUESTED)) continue;
    const resource = r.resource as DigestEdit["resource"];
    const requested = REQUESTED[resource](job);
    if (requested !== undefined && r.value < requested) edits.push({ resource, requested, advised: r.value });
  }
  return { edits, modelVersion: latest.modelVersion };
}
