import type { UsageSample } from "@jobsight/schemas";
import { checkBuiltSample } from "../mapping/sample-check.js";
import type { ContainerOnlySample, HostOnlySample } from "./decoded-observations.js";
import type { Pending } from "./pending-samples.js";
import { buildSample, dropIncompleteSections, pointsOf, TimeTexts } from "./sample-assembly.js";

// Stands in for the job id (and node) of a host- or container-only sample while it is checked
// against the schema: it is checked as it will be stored, once the caller has attributed it.
const UNATTRIBUTED_CHECK = "unattributed";

/** The finished samples of a request, by where they go. */
export type FinishedSamples = {
  /** Samples that name their job, in order of first appearance. */
  samples: UsageSample[];
  /** `accepted[i]` is what `samples[i]` was built from (for its idempotency key). */
  accepted: Pending[];
  /** Samples of node-wide points that name only their node (job id `""`). */
  hostOnly: HostOnlySample[];
  /** Samples of container and process points that name only their container (job id `""`). */
  containerOnly: ContainerOnlySample[];
};

/**
 * Builds the gathered samples, drops their incomplete sections, checks each against the schema
 * and sorts them by where they go; `reject` hears of every point dropped on the way, with its
 * sample's entry.
 *
 * @example
 * ```ts
 * const { samples, hostOnly } = finishSamples(entries, (entry, points, reason) => rejections.add(points, reason));
 * ```
 */
export function finishSamples(
  entries: readonly Pending[],
  reject: (entry: Pending, points: number, reason: string) => void,
): FinishedSamples {
  const finished: FinishedSamples = { samples: [], accepted: [], hostOnly: [], containerOnly: [] };
  const times = new TimeTexts();
  for (const entry of entries) {
    const unattributed = entry.jobId === "";
    dropIncompleteSections(entry.draft, (points, reason) => reject(entry, points, reason));
    const sample = buildSample(entry, times);
    if (!sample) continue;
    const checked = checkBuiltSample(
      unattributed
        ? { ...sample, jobId: UNATTRIBUTED_CHECK, node: sample.node || UNATTRIBUTED_CHECK }
        : sample,
    );
    if (!checked.ok) {
      const first = checked.errors[0];
      reject(entry, pointsOf(entry.draft), `invalid sample: ${first.path || "/"}: ${first.message}`);
      continue;
    }
    const metrics = entry.metrics ?? {};
    if (entry.containerId !== undefined) {
      finished.containerOnly.push({ sample, containerId: entry.containerId, metrics });
    } else if (unattributed) finished.hostOnly.push({ sample, metrics });
    else {
      finished.samples.push(sample);
      finished.accepted.push(entry);
    }
  }
  return finished;
}
