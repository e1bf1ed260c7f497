import type { EvidenceRef, Unseen, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../../context.js";
import { cpuCoverage } from "../../coverage.js";
import { metricEvidence, present, schedulerEvidence } from "../../evidence.js";
import { formatDuration, formatShare, trim } from "../../explain/format.js";
import { cpuRates, quantileOf } from "../../series.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";
import { type ContentionSignal as Signal, sustainedCount } from "./contention-signal.js";
import { LOAD_ONLY, nodeLoad } from "./node-load-signal.js";

/** What the lenses saw on one node, and which of them it lacked. */
interface NodeVerdict {
  readonly signals: readonly Signal[];
  /** Throttled time over the sampled span, cited beside a finding. */
  readonly throttle: { readonly text: string; readonly evidence: readonly EvidenceRef[] } | undefined;
  /** A cgroup quota (`cpu.max`) limits the job, so contention also shows as throttling. */
  readonly quota: boolean;
  /** Whether any lens could have seen threads queue inside the reservation (thread counts, PSI, load, a quota). */
  readonly judged: boolean;
  readonly notSeen: readonly string[];
}

/**
 * CPU oversubscribed: more runnable threads than reserved cores. Seen five ways, each where the
 * node offers it: runnable threads counted from `/proc/<pid>/task/<tid>/stat` (state R) against the
 * cores, on any cgroup version; `cpu.pressure some` high while every core is busy (cgroup v2 PSI);
 * the node's runnable tasks or load from `/proc/loadavg` when the job had the node to itself;
 * CPU time above the cores reserved (no cpuset held the threads); and the quota's throttled time,
 * cited beside them. Judged only where the CPU samples cover enough of the run; a node where none
 * of the lenses that see inside a cpuset was available is `unseen`.
 */
export const cpuOversubscribedRule: DiagnosisRule = {
  name: "cpu-oversubscribed",
  evaluate(ctx) {
    const parts: string[] = [];
    const evidence: EvidenceRef[] = [];
    const unseen: Unseen[] = [];
    let confidence = 0;
    let countedThreads = false;
    let queued = false;
    for (const [node, samples] of ctx.series) {
      const cores = samples.find((s) => s.cpu?.limitCores !== undefined)?.cpu?.limitCores ?? ctx.coresPerNode;
      if (cores === undefined || cores <= 0) continue;
      const cpu = cpuCoverage(ctx, node);
      if (cpu.unseen) {
        unseen.push(cpu.unseen);
        continue;
      }
      const v = judgeNode(ctx, node, samples, cores);
      if (v.signals.length === 0) {
        if (!v.judged) unseen.push(notJudged(ctx, node, cores));
        continue;
      }
      countedThreads ||= v.signals.some((s) => s.evidence.some((e) => COUNTS.has(e.metric ?? "")));
      queued ||= v.signals.some((s) => s.queued);
      confidence = Math.max(confidence, ...v.signals.map((s) => s.confidence));
      const throttle = v.throttle ? `; throttled ${v.throttle.text}${v.quota ? "" : " (no CPU quota)"}` : "";
      const missing = v.notSeen.length ? `; not seen there: ${v.notSeen.join(", ")}` : "";
      // The node's load counts every task on the node: when it is all there is, the claim says so.
      const loadOnly = v.signals.every((s) => s.evidence.some((e) => e.metric?.startsWith("cpu.node")));
      parts.push(
        `on ${node}, ${v.signals.map((s) => s.text).join("; ")}${loadOnly ? `; ${LOAD_ONLY}` : ""}${throttle}${missing}`,
      );
      for (const s of v.signals) evidence.push(...s.evidence);
      evidence.push(...(v.throttle?.evidence ?? []));
    }
    if (parts.length === 0) return unseen.length ? { findings: [], unseen } : NOTHING;
    const field = ctx.record.allocated?.cores !== undefined ? "allocated.cores" : "spec.requested.cores";
    const reserved = schedulerEvidence(ctx, field, `The job reserved ${readCores(ctx)} cores.`);
    const cause = !queued
      ? "Its threads took cores the scheduler gave other jobs: pin or size its threads to the cores reserved."
      : countedThreads
        ? "Threads queued for a core much of the time: size thread pools (OMP_NUM_THREADS, torch.set_num_threads, -j, worker counts) to the cores reserved, not to the node."
        : "Threads queued for a core much of the time.";
    return {
      findings: [
        {
          kind: "cpu_oversubscribed",
          severity: "warning",
          claim:
            `The job ran more busy threads than the cores it reserved: ${parts.join("; ")}. ${cause}`.slice(
              0,
              2048,
            ),
          confidence,
          evidence: [...present(reserved), ...evidence],
        },
      ],
      unseen,
    };
  },
};

/** Evidence that counted threads (the job's, or the node's with the job alone on it). */
const COUNTS = new Set(["cpu.runnableThreads", "cpu.nodeRunnable"]);

function readCores(ctx: RuleContext): string {
  return String(ctx.record.allocated?.cores ?? ctx.record.spec.requested.cores ?? "?");
}

function judgeNode(
  ctx: RuleContext,
  node: string,
  samples: readonly UsageSample[],
  cores: number,
): NodeVerdict {
  const signals: Signal[] = [];
  const notSeen: string[] = [];
  const threads = runnableThreads(ctx, node, samples, cores);
  if (threads === "absent") notSeen.push("runnable-thread counts (/proc/<pid>/task/<tid>/stat)");
  else if (threads) signals.push(threads);
  const psi = pressure(ctx, node, samples, cores);
  if (psi === "absent") notSeen.push("cpu.pressure (cgroup v1, or PSI off)");
  else if (psi) signals.push(psi);
  // Only on a node the job had to itself; elsewhere the collector sends no load and none is missed.
  const load = nodeLoad(ctx, node, samples, cores);
  if (load && load !== "absent") signals.push(load);
  // Cores per node are the job's cores split evenly, unless a quota says: a scheduler may give
  // one node more than another, so CPU time above an even share proves nothing on its own.
  const quota = samples.some((s) => s.cpu?.limitCores !== undefined);
  const nodes = ctx.record.nodes?.length ?? ctx.record.allocated?.nodes ?? ctx.nodes.length;
  const overuse = quota || nodes <= 1 ? aboveReserved(ctx, node, samples, cores) : undefined;
  if (overuse) signals.push(overuse);
  const throttle = throttled(node, samples);
  if (!throttle) notSeen.push("cpu.stat throttling counters");
  return {
    signals,
    throttle,
    quota,
    judged:
      threads !== "absent" || psi !== "absent" || load !== "absent" || (quota && throttle !== undefined),
    notSeen,
  };
}

/** Runnable threads against the cores: the direct count, on any cgroup version. */
function runnableThreads(
  ctx: RuleContext,
  node: string,
  samples: readonly UsageSample[],
  cores: number,
): Signal | "absent" | undefined {
  const t = ctx.thresholds;
  const bar = t.runnableThreadsPerCore * cores;
  const seen = sustainedCount(ctx, samples, (s) => s.cpu?.runnableThreads, bar);
  if (seen === undefined || seen === "absent") return seen;
  const { counted, over, share } = seen;
  const values = over.map((s) => s.cpu!.runnableThreads!);
  const median = quantileOf(values, 0.5);
  const most = Math.max(...values);
  const maxThreads = Math.max(0, ...over.map((s) => s.cpu?.threads ?? 0));
  return {
    text: `${median} runnable threads (median; up to ${most}${maxThreads > 0 ? ` of ${maxThreads}` : ""}) on ${trim(cores)} cores for ${formatShare(share)} of the run (${over.length} of ${counted.length} samples)`,
    confidence: 0.85,
    queued: true,
    evidence: present(
      metricEvidence(
        node,
        "cpu.runnableThreads",
        over,
        `Threads in state R on ${node} in the ${over.length} samples with at least ${trim(bar)} (${trim(t.runnableThreadsPerCore)} per core); median ${median}, up to ${most}.`,
      ),
      maxThreads > 0
        ? metricEvidence(
            node,
            "cpu.threads",
            over,
            `Threads of the job's processes on ${node}; at most ${maxThreads}.`,
          )
        : undefined,
      metricEvidence(
        node,
        "cpu.limitCores",
        [over[over.length - 1]],
        `cpu.max on ${node}: ${trim(cores)} cores.`,
      ),
    ),
  };
}

/** Every core busy while runnable tasks waited (cgroup v2 `cpu.pressure some avg10`). */
function pressure(
  ctx: RuleContext,
  node: string,
  samples: readonly UsageSample[],
  cores: number,
): Signal | "absent" | undefined {
  const t = ctx.thresholds;
  const rates = cpuRates(samples).filter((r) => r.to.pressure?.cpuSome !== undefined);
  if (rates.length < t.usageMinSamples) return "absent";
  const contended = rates.filter(
    (r) => r.to.pressure!.cpuSome! >= t.cpuPressureSomePercent && r.cores >= t.cpuSaturatedShare * cores,
  );
  const share = contended.length / rates.length;
  if (share < t.cpuOversubscribedShare) return undefined;
  const mean = contended.reduce((s, r) => s + r.to.pressure!.cpuSome!, 0) / contended.length;
  const withPids = samples.filter((s) => s.pids !== undefined);
  const maxPids = withPids.length ? Math.max(...withPids.map((s) => s.pids!)) : undefined;
  return {
    text: `all ${trim(cores)} cores were busy and CPU pressure (some) averaged ${trim(mean)}% in ${formatShare(share)} of the samples${maxPids !== undefined ? `, with up to ${maxPids} tasks in the job` : ""}`,
    confidence: 0.75,
    queued: true,
    evidence: present(
      metricEvidence(
        node,
        "pressure.cpuSome",
        contended.map((r) => r.to),
        `cpu.pressure some (avg10) on ${node} in the contended samples.`,
      ),
      metricEvidence(
        node,
        "cpu.usageSeconds",
        [contended[0].from, contended[contended.length - 1].to],
        `CPU time on ${node} across the contended stretch.`,
      ),
      maxPids !== undefined
        ? metricEvidence(node, "pids", withPids, `Tasks in the job's cgroup on ${node}; at most ${maxPids}.`)
        : undefined,
    ),
  };
}

/** CPU time above the cores reserved: the threads ran on cores the job did not reserve. */
function aboveReserved(
  ctx: RuleContext,
  node: string,
  samples: readonly UsageSample[],
  cores: number,
): Signal | undefined {
  const t = ctx.thresholds;
  const rates = cpuRates(samples);
  if (rates.length < t.usageMinSamples) return undefined;
  const above = rates.filter((r) => r.cores > t.cpuAboveReservedShare * cores);
  const share = above.length / rates.length;
  if (share < t.cpuOversubscribedShare) return undefined;
  const mean = above.reduce((s, r) => s + r.cores, 0) / above.length;
  return {
    text: `it used ${trim(mean)} cores on average where ${trim(cores)} were reserved, in ${formatShare(share)} of the sampled intervals (taking cores other jobs were given)`,
    confidence: 0.8,
    queued: false,
    evidence: present(
      metricEvidence(
        node,
        "cpu.usageSeconds",
        [above[0].from, above[above.length - 1].to],
        `CPU time on ${node}: ${trim(mean)} cores on average in the intervals above ${trim(cores)}.`,
      ),
    ),
  };
}

/** Throttled time over the sampled span (`cpu.stat throttled_usec`, cumulative). */
function throttled(
  node: string,
  samples: readonly UsageSample[],
): { text: string; evidence: EvidenceRef[] } | undefined {
  const withTime = samples.filter((s) => s.cpu?.throttledSeconds !== undefined);
  if (withTime.length < 2) return undefined;
  const first = withTime[0];
  const last = withTime[withTime.length - 1];
  const seconds = last.cpu!.throttledSeconds! - first.cpu!.throttledSeconds!;
  if (seconds < 0) return undefined;
  const periods =
    last.cpu!.periods !== undefined && first.cpu!.periods !== undefined
      ? last.cpu!.periods - first.cpu!.periods
      : undefined;
  const throttledPeriods =
    last.cpu!.throttledPeriods !== undefined && first.cpu!.throttledPeriods !== undefined
      ? last.cpu!.throttledPeriods - first.cpu!.throttledPeriods
      : undefined;
  const inPeriods =
    periods && throttledPeriods !== undefined && periods > 0
      ? ` in ${formatShare(throttledPeriods / periods)} of ${periods} periods`
      : "";
  return {
    text: `${formatDuration(seconds)}${inPeriods}`,
    evidence: present(
      metricEvidence(
        node,
        "cpu.throttledSeconds",
        [first, last],
        `cpu.stat throttled_usec on ${node} rose by ${trim(seconds)} s.`,
      ),
    ),
  };
}

/** The `unseen` entry of a node where no lens could see threads queueing inside the reservation. */
function notJudged(ctx: RuleContext, node: string, cores: number): Unseen {
  return {
    source: "cpu-contention",
    reason: `Whether more threads ran than the ${trim(cores)} cores reserved on ${node} was not judged: its samples carry no runnable-thread counts (/proc/<pid>/task/<tid>/stat), no cpu.pressure and no node load (/proc/loadavg, sent only for a job alone on its node), and no CPU quota throttled the job; CPU time alone cannot tell ${trim(cores)} busy threads from many more sharing ${trim(cores)} cores.`,
    ...(ctx.window ? { window: ctx.window } : {}),
  };
}
