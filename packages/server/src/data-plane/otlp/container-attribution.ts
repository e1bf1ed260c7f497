import type { ContainerOnlySample } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import type { ContainerJob } from "../queries/jobs-by-container.js";
import type { JobStore } from "../storage/storage.js";
import type { HostAttribution } from "./host-attribution.js";

/** Container-only samples given their job, and the points of those that found none. */
export type ContainerAttribution = HostAttribution;

/**
 * The job whose record lists each container: `undefined` for a container two jobs' records list
 * (a container runs in one pod: two records listing it are wrong, and neither is taken).
 */
function jobsOf(jobs: readonly ContainerJob[]): Map<string, ContainerJob | undefined> {
  const byContainer = new Map<string, ContainerJob | undefined>();
  for (const job of jobs) {
    if (!byContainer.has(job.containerId)) byContainer.set(job.containerId, job);
    else if (byContainer.get(job.containerId)?.jobId !== job.jobId)
      byContainer.set(job.containerId, undefined);
  }
  return byContainer;
}

/**
 * Gives each container-only sample (a container's or process's reading that names only its
 * `container.id`) the job whose record lists that container, that job's user (never one the
 * reading named) and, when the reading named no node, the job's node. Never guesses: a container
 * no record lists, or two records list, or whose job has no one node, is counted as skipped
 * (`container_unmapped`, by metric) and its sample not stored.
 *
 * @example
 * ```ts
 * const { samples, skipped } = attributeContainerSamples(decoded.containerOnly ?? [], await jobs.withContainers(…));
 * ```
 */
export function attributeContainerSamples(
  containerOnly: readonly ContainerOnlySample[],
  jobs: readonly ContainerJob[],
): ContainerAttribution {
  const byContainer = jobsOf(jobs);
  const samples: UsageSample[] = [];
  const skipped: ContainerAttribution["skipped"] = [];
  for (const { sample, containerId, metrics } of containerOnly) {
    const job = byContainer.get(containerId);
    const node = sample.node || (job?.nodes.length === 1 ? job.nodes[0] : "");
    if (!job || !node) {
      for (const [metric, points] of Object.entries(metrics)) {
        skipped.push({ reason: "container_unmapped", metric, points });
      }
      continue;
    }
    // The job's own user: a container's reading cannot speak for anyone else's job.
    samples.push({ ...sample, jobId: job.jobId, node, user: job.user });
  }
  return { samples, skipped };
}

/**
 * {@link attributeContainerSamples} with the jobs read from the store: one query per export, for
 * the containers its container-only samples name.
 *
 * @example
 * ```ts
 * const { samples, skipped } = await attributeContainersFromStore(storage.jobs, "k8s1", decoded.containerOnly ?? []);
 * ```
 */
export async function attributeContainersFromStore(
  jobs: Pick<JobStore, "withContainers">,
  cluster: string,
  containerOnly: readonly ContainerOnlySample[],
): Promise<ContainerAttribution> {
  if (containerOnly.length === 0) return { samples: [], skipped: [] };
  const ids = new Set(containerOnly.map((c) => c.containerId));
  return attributeContainerSamples(containerOnly, await jobs.withContainers(cluster, [...ids]));
}
