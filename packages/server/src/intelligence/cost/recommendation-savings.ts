import type { CostRates, JobRecord, RecommendationSavings } from "@jobsight/schemas";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { editSavings } from "../alerts/digest/edit-savings.js";
import { jobWaste } from "../alerts/digest/job-waste.js";
import { submissionEdits } from "../alerts/digest/submission-edits.js";
import { priceHours, pricesAnything } from "./price-hours.js";

/** Options of {@link recommendationSavings}. */
export type RecommendationSavingsOptions = {
  /** Only jobs of this cluster. @default undefined (every cluster) */
  cluster?: string;
  /** The end of the window (exclusive). @default the current time */
  to?: Date;
  /** The window's length in days, ending at `to`. @default 30 */
  days?: number;
  /** Most ended jobs looked at (newest submissions first); beyond, `truncated`. @default 2000 */
  maxJobs?: number;
  /** The site's rates: the savings in money too. @default undefined (amounts only) */
  rates?: CostRates;
};

const DAY_MS = 86_400_000;
/** How long before its end a job of the window may have been submitted. */
const SUBMITTED_BEFORE_DAYS = 30;
const PAGE = 500;

/**
 * What the jobs that ended in the last `days` would have saved had their submissions taken the
 * advice recorded for them: the edits the weekly digest lists (`submissionEdits`), each worth
 * `editSavings`. Only jobs that left something unused are looked up, since an edit saves nothing
 * of what a job used.
 *
 * @example
 * ```ts
 * const savings = await recommendationSavings(storage, { rates: config.cost });
 * savings.coreHours; // 1250.5
 * savings.cost?.total; // 62.53
 * ```
 */
export async function recommendationSavings(
  storage: Pick<DataPlaneStorage, "pool" | "jobs">,
  options: RecommendationSavingsOptions = {},
): Promise<RecommendationSavings> {
  const to = options.to ?? new Date();
  const from = new Date(+to - (options.days ?? 30) * DAY_MS);
  const { jobs, truncated } = await endedJobs(storage, options.cluster, from, to, options.maxJobs ?? 2000);
  const savings: RecommendationSavings = {
    from: from.toISOString(),
    to: to.toISOString(),
    jobs: jobs.length,
    jobsWithAdvice: 0,
    truncated,
    coreHours: 0,
    memoryGibHours: 0,
    gpuHours: 0,
  };
  const gpuHoursByType: Record<string, number> = {};
  for (const job of jobs) {
    const waste = jobWaste(job);
    if (waste.unusedCoreHours + waste.unusedMemoryGiBHours + waste.unusedGpuHours === 0) continue;
    const { edits } = await submissionEdits(storage, job);
    if (edits.length === 0) continue;
    savings.jobsWithAdvice++;
    const saved = editSavings(job, edits);
    savings.coreHours += saved.coreHours;
    savings.memoryGibHours += saved.memoryGibHours;
    savings.gpuHours += saved.gpuHours;
    gpuHoursByType[saved.gpuType] = (gpuHoursByType[saved.gpuType] ?? 0) + saved.gpuHours;
  }
  if (pricesAnything(options.rates))
    savings.cost = priceHours(options.rates, {
      coreHours: savings.coreHours,
      memoryGibHours: savings.memoryGibHours,
      gpuHoursByType,
    });
  return savings;
}

async function endedJobs(
  storage: Pick<DataPlaneStorage, "jobs">,
  cluster: string | undefined,
  from: Date,
  to: Date,
  max: number,
): Promise<{ jobs: JobRecord[]; truncated: boolean }> {
  const found: JobRecord[] = [];
  const submittedFrom = new Date(+from - SUBMITTED_BEFORE_DAYS * DAY_MS).toISOString();
  let cursor: string | undefined;
  do {
    const page = await storage.jobs.list({
      cluster,
      from: submittedFrom,
      to: to.toISOString(),
      limit: PAGE,
      cursor,
    });
    for (const job of page.items) {
      const ended = job.endedAt ? Date.parse(job.endedAt) : Number.NaN;
      if (job.phase === "ended" && ended >= +from && ended < +to) found.push(job);
      if (found.length > max) return { jobs: found.slice(0, max), truncated: true };
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { jobs: found, truncated: false };
}
