import type { HostOnlySample, SkippedPoints, SkipReason } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import type { NodeOccupancy } from "../queries/jobs-on-nodes.js";
import type { JobStore } from "../storage/storage.js";

/** Host-only samples given their job, and the points of those that found none, by reason. */
export type HostAttribution = {
  samples: UsageSample[];
  skipped: { reason: SkipReason; metric: string; points: number }[];
};

/**
 * The job that had `node` to itself at `timeMs`, or why there is none. A job has a node alone when
 * its record is the only one placing a running job there then (started at or before the reading,
 * not yet ended): `no_job_on_node` when none does (no job ran, or its record has not arrived yet:
 * the points are skipped, not held), `node_shared` when several do, or when the one job is a
 * Kubernetes pod, whose node also runs pods Jobsight keeps no record of.
 *
 * @example
 * ```ts
 * soleJob(onNodes, "cn001", Date.parse("2026-12-01T10:00:00Z")); // { jobId: "4242", user: "alice", … }
 * ```
 */
export function soleJob(
  jobs: readonly NodeOccupancy[],
  node: string,
  timeMs: number,
): NodeOccupancy | "no_job_on_node" | "node_shared" {
  let found: NodeOccupancy | undefined;
  for (const job of jobs) {
    if (job.node !== node || job.startedMs > timeMs) continue;
    if (job.endedMs !== null && job.endedMs <= timeMs) continue;
    if (found && found.jobId !== job.jobId) return "node_shared";
    found = job;
  }
  if (!found) return "no_job_on_node";
  return found.scheduler === "kubernetes" ? "node_shared" : found;
}

/**
 * Gives each host-only sample (a node-wide reading that names only its node) the job that had the
 * node alone at the sample's time (see {@link soleJob}), and that job's user. Never guesses: a sample without exactly one such job is counted as skipped, by reason and
 * metric, and not stored.
 *
 * @example
 * ```ts
 * const { samples, skipped } = attributeHostSamples(decoded.hostOnly ?? [], await jobs.onNodes(…));
 * ```
 */
export function attributeHostSamples(
  hostOnly: readonly HostOnlySample[],
  jobs: readonly NodeOccupancy[],
): HostAttribution {
  const samples: UsageSample[] = [];
  const skipped: HostAttribution["skipped"] = [];
  for (const { sample, metrics } of hostOnly) {
    const job = soleJob(jobs, sample.node, Date.parse(sample.time));
    if (typeof job === "string") {
      for (const [metric, points] of Object.entries(metrics)) skipped.push({ reason: job, metric, points });
      continue;
    }
    // The job's own user: a node-wide reading cannot speak for anyone else's job.
    samples.push({ ...sample, jobId: job.jobId, user: job.user });
  }
  return { samples, skipped };
}

/**
 * {@link attributeHostSamples} with the jobs read from the store: one query per export, for the
 * nodes its host-only samples name and the span of their times.
 *
 * @example
 * ```ts
 * const { samples, skipped } = await attributeFromStore(storage.jobs, "hpc1", decoded.hostOnly ?? []);
 * ```
 */
export async function attributeFromStore(
  jobs: Pick<JobStore, "onNodes">,
  cluster: string,
  hostOnly: readonly HostOnlySample[],
): Promise<HostAttribution> {
  if (hostOnly.length === 0) return { samples: [], skipped: [] };
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  const nodes = new Set<string>();
  for (const { sample } of hostOnly) {
    const t = Date.parse(sample.time);
    from = Math.min(from, t);
    to = Math.max(to, t);
    nodes.add(sample.node);
  }
  const on = await jobs.onNodes(cluster, [...nodes], from, to);
  return attributeHostSamples(hostOnly, on);
}

/** Adds the points of {@link HostAttribution.skipped} to an export's skipped points. */
export function addSkipped(into: SkippedPoints, skipped: HostAttribution["skipped"]): void {
  for (const { reason, metric, points } of skipped) {
    into.count += points;
    into.byReason[reason] ??= {};
    const names = into.byReason[reason];
    names[metric] = (names[metric] ?? 0) + points;
  }
}
