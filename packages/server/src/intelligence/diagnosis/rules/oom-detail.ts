import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { metricEvidence, present, processEvidence, schedulerEvidence } from "../evidence.js";
import { formatBytes, formatShare } from "../explain/format.js";
import type { MemoryProfile } from "../memory-profile.js";
import { readFrom, sampleOrigin } from "../metric-sources.js";

/** Sentences and evidence describing one node's memory at an OOM kill. */
export interface OomDetail {
  readonly sentences: readonly string[];
  readonly evidence: readonly EvidenceRef[];
}

/**
 * What held the memory at the end, which processes, and how memory got there (leak, spike, or a
 * peak between samples), each sentence backed by the samples it rests on.
 */
export function oomDetail(ctx: RuleContext, p: MemoryProfile): OomDetail {
  const sentences: string[] = [];
  const evidence: EvidenceRef[] = [];
  const add = (sentence: string | undefined, ...refs: (EvidenceRef | undefined)[]) => {
    const got = present(...refs);
    if (sentence && got.length > 0) {
      sentences.push(sentence);
      evidence.push(...got);
    }
  };
  if (p.peakBytes !== undefined && p.limitBytes !== undefined) {
    const s = p.peakSample ?? p.maxCurrent!;
    const metric = p.peakSample ? "memory.peakBytes" : "memory.currentBytes";
    const limitText = p.limitFrom === "cgroup" ? "its cgroup limit (memory.max)" : "its request";
    const sampled = metricEvidence(
      p.node,
      metric,
      [s],
      `${sourceText(metric, s)} on ${p.node}: ${formatBytes(p.peakBytes)}.`,
    );
    const limit =
      p.limitFrom === "cgroup"
        ? metricEvidence(
            p.node,
            "memory.limitBytes",
            [s],
            `memory.max on ${p.node}: ${formatBytes(p.limitBytes)}.`,
          )
        : undefined;
    const recorded = recordedPeak(ctx);
    // The scheduler's MaxRSS is taken every poll, the samples far less often: the higher one is the peak.
    if (recorded && recorded.bytes > p.peakBytes) {
      add(
        `Memory on ${p.node} peaked at ${formatBytes(recorded.bytes)} against ${formatBytes(p.limitBytes)}, ${limitText}: the scheduler's ${recorded.name} (${formatBytes(recorded.bytes)}) is above the highest sampled value (${formatBytes(p.peakBytes)}, ${sourceText(metric, s)}).`,
        schedulerEvidence(
          ctx,
          recorded.field,
          `The scheduler's ${recorded.name}: ${formatBytes(recorded.bytes)}.`,
        ),
        sampled,
        limit,
      );
    } else {
      add(
        `Memory on ${p.node} peaked at ${formatBytes(p.peakBytes)} against ${formatBytes(p.limitBytes)}, ${limitText}.`,
        sampled,
        limit,
      );
    }
  }
  const b = p.breakdown;
  if (b?.memory) {
    const { anonBytes: anon = 0, fileBytes: file = 0, shmemBytes: shmem = 0 } = b.memory;
    // memory.stat `file` includes tmpfs and shared memory; page cache proper is the rest.
    const cache = Math.max(0, file - shmem);
    const parts: [string, number][] = [
      ["anonymous memory (heap)", anon],
      ["page cache", cache],
      ["shared memory / tmpfs such as /dev/shm", shmem],
    ];
    const [topName, topBytes] = parts.reduce((a, x) => (x[1] > a[1] ? x : a));
    const total = anon + cache + shmem;
    const note = topName.startsWith("shared")
      ? " Files written to /dev/shm (or shared-memory segments) count against the job's memory and are freed only when deleted."
      : topName === "page cache"
        ? " Page cache is normally reclaimable; a kill with mostly page cache points at dirty or locked file pages."
        : "";
    add(
      `At the highest reading before the kill (${b.time}) most of it was ${topName}: ${formatBytes(topBytes)}${total > 0 ? ` (${formatShare(topBytes / total)})` : ""}; anonymous ${formatBytes(anon)}, page cache ${formatBytes(cache)}, shared memory ${formatBytes(shmem)}.${note}`,
      metricEvidence(p.node, "memory.anonBytes", [b], `memory.stat anon on ${p.node}: ${formatBytes(anon)}.`),
      metricEvidence(
        p.node,
        "memory.fileBytes",
        [b],
        `memory.stat file on ${p.node} (includes shmem): ${formatBytes(file)}.`,
      ),
      metricEvidence(
        p.node,
        "memory.shmemBytes",
        [b],
        `memory.stat shmem on ${p.node}: ${formatBytes(shmem)}.`,
      ),
    );
  }
  const ps = p.processes;
  if (ps?.processes) {
    const top = [...ps.processes].sort((a, c) => c.rssBytes - a.rssBytes).slice(0, 3);
    add(
      `The largest process${top.length > 1 ? "es were" : " was"} ${top.map((x) => `${x.command} (pid ${x.pid}, ${formatBytes(x.rssBytes)})`).join(", ")}.`,
      ...top.map((x) =>
        processEvidence(
          p.node,
          ps,
          x.pid,
          `${x.command} (pid ${x.pid}) held ${formatBytes(x.rssBytes)} resident, state ${x.state}, at ${ps.time}.`,
        ),
      ),
    );
  }
  const pat = p.pattern;
  if (pat.kind === "leak") {
    const upTo = p.samples.slice(p.samples.indexOf(pat.from), p.samples.indexOf(pat.to) + 1);
    add(
      `Memory climbed steadily, rising in ${formatShare(pat.risingShare)} of the sampling intervals from ${formatBytes(pat.from.memory!.currentBytes)} to ${formatBytes(pat.to.memory!.currentBytes)}: a leak, or data that accumulates over the run.`,
      metricEvidence(
        p.node,
        "memory.currentBytes",
        upTo,
        `memory.current on ${p.node} from ${pat.from.time} to ${pat.to.time}.`,
      ),
    );
  } else if (pat.kind === "spike") {
    const seg = p.samples.slice(p.samples.indexOf(pat.from), p.samples.indexOf(pat.to) + 1);
    add(
      `Memory jumped from ${formatBytes(pat.from.memory!.currentBytes)} to ${formatBytes(pat.to.memory!.currentBytes)} between ${pat.from.time} and ${pat.to.time}: a sudden allocation, not a slow leak.`,
      metricEvidence(p.node, "memory.currentBytes", seg, `memory.current on ${p.node} around the jump.`),
    );
  } else if (pat.kind === "peak-between-samples") {
    const peak = pat.peak.memory!.peakBytes!;
    const top = pat.maxCurrent.memory!.currentBytes;
    add(
      `memory.peak (${formatBytes(peak)}) is ${(peak / top).toFixed(1)} times the largest sampled memory.current (${formatBytes(top)}): the peak fell between two samples, a spike shorter than the sampling interval that the samples did not catch.`,
      metricEvidence(
        p.node,
        "memory.peakBytes",
        [pat.peak],
        `memory.peak on ${p.node}: ${formatBytes(peak)}.`,
      ),
      metricEvidence(
        p.node,
        "memory.currentBytes",
        p.samples,
        `memory.current on ${p.node} over the run; largest ${formatBytes(top)}.`,
      ),
    );
  }
  return { sentences, evidence };
}

/** The highest memory the scheduler recorded: a step's MaxRSS, else the job's recorded peak. */
function recordedPeak(ctx: RuleContext): { bytes: number; field: string; name: string } | undefined {
  let best: { bytes: number; field: string; name: string } | undefined;
  (ctx.record.steps ?? []).forEach((st, i) => {
    if (st.maxRssBytes !== undefined && st.maxRssBytes > (best?.bytes ?? -1))
      best = { bytes: st.maxRssBytes, field: `steps.${i}.maxRssBytes`, name: `MaxRSS of step ${st.stepId}` };
  });
  const job = ctx.record.peaks?.memoryBytes;
  // peaks.memoryBytes is the largest step MaxRSS when it came from sacct: cite the step instead.
  if (job !== undefined && job > (best?.bytes ?? -1))
    best = { bytes: job, field: "peaks.memoryBytes", name: "recorded peak memory" };
  return best;
}

/** A memory metric named by where this sample read it, e.g. `memory.current` or summed /proc RSS. */
function sourceText(metric: string, s: UsageSample): string {
  if (sampleOrigin(s) === "proc") return "the summed resident memory of the job's processes in /proc";
  const from = readFrom(metric, sampleOrigin(s));
  return from.source.replace(/^cgroup:/, "");
}
