import type { CostRates, JobRecord, ResourceCost, WasteCost, WasteRow } from "@jobsight/schemas";
import { wasteReport } from "../../../data-plane/queries/waste-query.js";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import { priceHours } from "../../cost/price-hours.js";
import { wasteRowCost } from "../../cost/waste-cost.js";
import type { DigestWeek } from "./digest-week.js";
import { type EditSavings, editSavings } from "./edit-savings.js";
import { type JobWaste, jobWaste, wasteScore } from "./job-waste.js";
import { type DigestEdit, submissionEdits } from "./submission-edits.js";

/** One of the user's most wasteful jobs of the week, with the edits the advice asked for. */
export type DigestJob = JobWaste & {
  cluster: string;
  jobId: string;
  endedAt: string;
  /** Empty when no live advice was recorded for the submission, or it asked for no less. */
  edits: DigestEdit[];
  /** The model version whose advice the edits come from. */
  modelVersion?: string;
  /** What the edits would have saved, in hours of each resource. */
  saved: EditSavings;
  /** `saved` in money, at the site's rates; absent without rates. */
  savedCost?: ResourceCost;
};

/** A user's week: efficiency, waste, and the edits that would have saved it. */
export type UserDigest = {
  user: string;
  week: { start: string; end: string };
  /** Jobs of the user that ended in the week. */
  jobs: number;
  /** Hours reserved and used: cores (core-hours), GPUs (GPU-hours), memory (GiB-hours). */
  cores: { reservedHours: number; usedHours: number };
  gpus: { reservedHours: number; usedHours: number };
  memory: { reservedGiBHours: number; usedGiBHours: number };
  /** Core-hours and GPU-hours the samples saw idle, when samples covered the jobs. */
  idleCoreHours?: number;
  idleGpuHours?: number;
  /** The most wasteful jobs, worst first. */
  worstJobs: DigestJob[];
  /** The week's unused and idle hours in money, at the site's rates; absent without rates. */
  cost?: WasteCost & { currency: string };
};

/** Options of {@link weeklyDigests}. */
export type WeeklyDigestOptions = {
  /** Most jobs (worst first) whose edits each digest lists. @default 5 */
  maxJobs?: number;
  /** Most ended jobs of one user read to find the worst. @default 2000 */
  maxJobsRead?: number;
  /** Only these users (the others' digests are not built). @default every user with ended jobs */
  users?: ReadonlySet<string>;
  /** The site's rates (`cost.*`), which add money. @default undefined (amounts only) */
  rates?: CostRates;
};

const HOUR = 3600;
const GIB = 2 ** 30;
const DAY_MS = 86_400_000;
/** How long before its end a job of the week may have been submitted. */
const SUBMITTED_BEFORE_DAYS = 30;

/**
 * The digest of each user with jobs that ended in `week`: their totals from the waste report
 * (reserved against used, and idle by the samples) and their most wasteful jobs, each with the
 * edits the advice recorded for its submission asked for (the latest live advice up to the
 * submission: what the user was, or could have been, shown).
 *
 * @example
 * ```ts
 * const digests = await weeklyDigests(storage, lastWholeWeek(new Date()));
 * digests[0].worstJobs[0].edits; // [{ resource: "memory", requested: 68719476736, advised: 12884901888 }]
 * ```
 */
export async function weeklyDigests(
  storage: Pick<DataPlaneStorage, "pool" | "jobs">,
  week: DigestWeek,
  options: WeeklyDigestOptions = {},
): Promise<UserDigest[]> {
  const report = await wasteReport(storage.pool, {
    by: "user",
    from: week.start.toISOString(),
    to: week.end.toISOString(),
    now: week.end,
  });
  const rows = report.rows.filter((r) => r.key !== "" && (!options.users || options.users.has(r.key)));
  const digests: UserDigest[] = [];
  for (const row of rows) {
    const jobs = await endedJobs(storage, row.key, week, options.maxJobsRead ?? 2000);
    const worst = jobs
      .map((job) => ({ job, waste: jobWaste(job) }))
      .filter((j) => wasteScore(j.waste) > 0)
      .sort((a, b) => wasteScore(b.waste) - wasteScore(a.waste))
      .slice(0, options.maxJobs ?? 5);
    const worstJobs: DigestJob[] = [];
    for (const { job, waste } of worst) worstJobs.push(await digestJob(storage, job, waste, options.rates));
    const digest = totals(row, week, worstJobs);
    if (options.rates)
      digest.cost = { currency: options.rates.currency, ...wasteRowCost(row, options.rates) };
    digests.push(digest);
  }
  return digests;
}

function totals(row: WasteRow, week: DigestWeek, worstJobs: DigestJob[]): UserDigest {
  const digest: UserDigest = {
    user: row.key,
    week: { start: week.start.toISOString(), end: week.end.toISOString() },
    jobs: row.jobs,
    cores: { reservedHours: row.coreSecondsRequested / HOUR, usedHours: row.coreSecondsUsed / HOUR },
    gpus: { reservedHours: row.gpuSecondsRequested / HOUR, usedHours: row.gpuSecondsUsed / HOUR },
    memory: {
      reservedGiBHours: row.memoryRequestedByteSeconds / GIB / HOUR,
      usedGiBHours: row.memoryUsedByteSeconds / GIB / HOUR,
    },
    worstJobs,
  };
  // Only what samples covered: no readings is no evidence of idleness.
  if (row.idleCoreSeconds !== undefined && (row.observedCoreSeconds ?? 0) > 0)
    digest.idleCoreHours = row.idleCoreSeconds / HOUR;
  if (row.idleGpuSeconds !== undefined && (row.observedGpuSeconds ?? 0) > 0)
    digest.idleGpuHours = row.idleGpuSeconds / HOUR;
  return digest;
}

async function endedJobs(
  storage: Pick<DataPlaneStorage, "jobs">,
  user: string,
  week: DigestWeek,
  max: number,
): Promise<JobRecord[]> {
  const found: JobRecord[] = [];
  const from = new Date(+week.start - SUBMITTED_BEFORE_DAYS * DAY_MS).toISOString();
  let cursor: string | undefined;
  do {
    const page = await storage.jobs.list({ user, from, to: week.end.toISOString(), limit: 500, cursor });
    for (const job of page.items) {
      const ended = job.endedAt ? Date.parse(job.endedAt) : Number.NaN;
      if (job.phase === "ended" && ended >= +week.start && ended < +week.end) found.push(job);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor && found.length < max);
  return found.slice(0, max);
}

async function digestJob(
  storage: Pick<DataPlaneStorage, "pool">,
  job: JobRecord,
  waste: JobWaste,
  rates: CostRates | undefined,
): Promise<DigestJob> {
  const { edits, modelVersion } = await submissionEdits(storage, job);
  const saved = editSavings(job, edits);
  const digestJob: DigestJob = {
    ...waste,
    cluster: job.cluster,
    jobId: job.jobId,
    endedAt: job.endedAt ?? "",
    edits,
    ...(modelVersion !== undefined ? { modelVersion } : {}),
    saved,
  };
  if (rates)
    digestJob.savedCost = priceHours(rates, {
      coreHours: saved.coreHours,
      memoryGibHours: saved.memoryGibHours,
      gpuHoursByType: { [saved.gpuType]: saved.gpuHours },
    });
  return digestJob;
}
