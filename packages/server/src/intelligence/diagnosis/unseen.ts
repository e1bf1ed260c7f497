import type { Unseen, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import { formatDuration, ms } from "./explain/format.js";
import { medianInterval } from "./series.js";
import { sourceLimitsUnseen } from "./unseen/source-limits-unseen.js";

/**
 * Every source that would have mattered and was missing: no samples (or none from a node), gaps
 * in the samples, no GPU metrics for a GPU job, what the sources that fed the job cannot see, an
 * unreadable kernel log, no final reading, no recorded outcome.
 */
export function sourcesUnseen(ctx: RuleContext): Unseen[] {
  const out: Unseen[] = [];
  const w = ctx.window;
  if (!ctx.record.outcome) {
    out.push({
      source: "job-outcome",
      reason:
        "The job has no recorded outcome yet (still running, or the scheduler's end record has not arrived).",
    });
  }
  if (ctx.series.size === 0) {
    out.push({
      source: "usage-samples",
      reason: "No usage samples were received for this job: its memory, CPU, I/O and GPU use are unknown.",
      ...(w ? { window: w } : {}),
    });
  } else {
    for (const node of ctx.nodes) {
      if (!ctx.series.has(node)) {
        out.push({
          source: "usage-samples",
          reason: `No usage samples from ${node}: what the job used there is unknown.`,
          ...(w ? { window: w } : {}),
        });
      }
    }
    for (const [node, samples] of ctx.series) {
      out.push(...gaps(ctx, "usage-samples", samples, `No usage sample from ${node}`));
    }
  }
  for (const e of ctx.input.events) {
    if (
      e.kind === "source_unavailable" &&
      (e.source === "cgroup" || e.source === "proc") &&
      ctx.nodes.includes(e.node)
    ) {
      out.push({
        source: "usage-samples",
        reason: `The collector on ${e.node} could not read ${e.source}: ${e.message}`,
      });
    }
  }
  // Without any sample the usage-samples entry already says GPU use is unknown.
  if (ctx.gpusReserved > 0 && ctx.series.size > 0) {
    for (const node of ctx.nodes) {
      if (!ctx.gpuMetricNodes.has(node)) {
        const why = ctx.input.events.find(
          (e) => e.kind === "source_unavailable" && e.source === "gpu" && e.node === node,
        );
        out.push({
          source: "gpu-metrics",
          reason: `No GPU metrics from ${node}${why ? ` (${why.message})` : ""}: GPU use, idle GPUs and GPU memory cannot be judged there.`,
          ...(w ? { window: w } : {}),
        });
      } else {
        const withGpu = (ctx.series.get(node) ?? []).filter((s) => (s.gpus?.length ?? 0) > 0);
        out.push(...gaps(ctx, "gpu-metrics", withGpu, `No GPU metrics from ${node}`, ctx.series.get(node)));
      }
    }
  }
  out.push(...sourceLimitsUnseen(ctx));
  for (const node of ctx.kernelLogUnreadable) {
    const why = ctx.input.events.find(
      (e) => e.kind === "source_unavailable" && e.source === "kmsg" && e.node === node,
    );
    const how = why
      ? `was not read (${why.message})`
      : ctx.input.sourcesSeen.kernelLog === false
        ? "was not read"
        : "was not read: no collector reported from the node";
    out.push({
      source: "kernel-log",
      reason: `The kernel log of ${node} ${how}: OOM kills and GPU Xid errors there would not be seen.`,
      ...(w ? { window: w } : {}),
    });
  }
  if (ctx.record.outcome && ctx.series.size > 0 && !ctx.finalReadingSeen) {
    out.push({
      source: "final-reading",
      reason:
        "The job ended before the collector's final reading: its last moments (and any peak in them) were not observed.",
      ...(w ? { window: w } : {}),
    });
  }
  return out;
}

/**
 * Windows longer than the gap multiple of the median interval with no sample, including from the
 * job's start to the first sample and from the last sample to the job's end. `cadence` gives the
 * samples whose median interval sets the bar (defaults to the samples themselves).
 */
function gaps(
  ctx: RuleContext,
  source: string,
  samples: readonly UsageSample[],
  what: string,
  cadence: readonly UsageSample[] = samples,
): Unseen[] {
  const median = medianInterval(cadence);
  if (median === undefined || median <= 0 || samples.length === 0) return [];
  const limit = ctx.thresholds.gapIntervalMultiple * median;
  const times = samples.map((s) => s.time);
  const start = ctx.record.startedAt;
  const end = ctx.record.endedAt;
  const bounds: string[] = [
    ...(start && ms(start) < ms(times[0]) ? [start] : []),
    ...times,
    ...(end && ms(end) > ms(times[times.length - 1]) ? [end] : []),
  ];
  const out: Unseen[] = [];
  for (let i = 1; i < bounds.length; i++) {
    const seconds = (ms(bounds[i]) - ms(bounds[i - 1])) / 1000;
    if (seconds > limit) {
      out.push({
        source,
        reason: `${what} for ${formatDuration(seconds)} (the usual interval is ${formatDuration(median)}): anything that happened then was not observed.`,
        window: { start: bounds[i - 1], end: bounds[i] },
      });
    }
  }
  return out;
}
