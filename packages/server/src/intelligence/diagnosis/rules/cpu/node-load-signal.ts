import type { UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../../context.js";
import { metricEvidence, present } from "../../evidence.js";
import { formatShare, trim } from "../../explain/format.js";
import { quantileOf } from "../../series.js";
import { type ContentionSignal, sustainedCount } from "./contention-signal.js";

/** Said in the claim when the node's load is the only sign of contention on a node. */
export const LOAD_ONLY =
  "seen only through the node's load, which counts every task on the node, not the job's alone";

/**
 * Runnable tasks of a node the job had to itself against the job's cores, from `/proc/loadavg`:
 * the collector sends the node's load only while the job is alone on it, so on a cgroup v1 node
 * without PSI, or where the job's threads were not counted, the node's queue is the job's queue.
 * The count of tasks in state R (`cpu.nodeRunnable`) is judged when samples carry it; the 1-minute
 * load average (`cpu.nodeLoad1`) only without it, since it also counts tasks waiting on I/O
 * (state D). `"absent"` when too few samples carry either (the job shared its node).
 *
 * @example
 * ```ts
 * const s = nodeLoad(ctx, "cn064", samples, 8); // 14 tasks running on the node's 8 reserved cores…
 * ```
 */
export function nodeLoad(
  ctx: RuleContext,
  node: string,
  samples: readonly UsageSample[],
  cores: number,
): ContentionSignal | "absent" | undefined {
  const bar = ctx.thresholds.nodeLoadPerCore * cores;
  const runnable = sustainedCount(ctx, samples, (s) => s.cpu?.nodeRunnable, bar);
  if (runnable !== "absent") {
    if (!runnable) return undefined;
    const { over, counted, share } = runnable;
    const values = over.map((s) => s.cpu!.nodeRunnable!);
    const median = quantileOf(values, 0.5);
    const most = Math.max(...values);
    const loads = over.flatMap((s) => (s.cpu?.nodeLoad1 !== undefined ? [s.cpu.nodeLoad1] : []));
    const load = loads.length ? `, 1-minute load ${trim(quantileOf(loads, 0.5))}` : "";
    return {
      text: `${trim(median)} tasks running or waiting for a core on the node (median; up to ${most}${load}; /proc/loadavg, the job alone on the node) on ${trim(cores)} cores for ${formatShare(share)} of the run (${over.length} of ${counted.length} samples)`,
      confidence: 0.7,
      queued: true,
      evidence: present(
        metricEvidence(
          node,
          "cpu.nodeRunnable",
          over,
          `Tasks in state R on ${node}, which ran only this job, in the ${over.length} samples with at least ${trim(bar)} (${trim(ctx.thresholds.nodeLoadPerCore)} per core); median ${trim(median)}, up to ${most}.`,
        ),
        loads.length
          ? metricEvidence(
              node,
              "cpu.nodeLoad1",
              over,
              `1-minute load average of ${node} in those samples; up to ${trim(Math.max(...loads))}.`,
            )
          : undefined,
      ),
    };
  }
  const averaged = sustainedCount(ctx, samples, (s) => s.cpu?.nodeLoad1, bar);
  if (averaged === "absent" || averaged === undefined) return averaged;
  const { over, counted, share } = averaged;
  const values = over.map((s) => s.cpu!.nodeLoad1!);
  const median = quantileOf(values, 0.5);
  const most = Math.max(...values);
  return {
    text: `a 1-minute load average of ${trim(median)} on the node (median; up to ${trim(most)}; /proc/loadavg, the job alone on the node, tasks waiting on I/O included) on ${trim(cores)} cores for ${formatShare(share)} of the run (${over.length} of ${counted.length} samples)`,
    confidence: 0.6,
    queued: true,
    evidence: present(
      metricEvidence(
        node,
        "cpu.nodeLoad1",
        over,
        `1-minute load average of ${node}, which ran only this job, in the ${over.length} samples with at least ${trim(bar)} (${trim(ctx.thresholds.nodeLoadPerCore)} per core); median ${trim(median)}, up to ${trim(most)}.`,
      ),
    ),
  };
}
