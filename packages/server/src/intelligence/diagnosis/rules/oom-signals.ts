import type { EvidenceRef, JobStep, NodeEvent } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { eventEvidence, logEvidence, metricEvidence, present, schedulerEvidence } from "../evidence.js";
import { formatBytes, formatShare } from "../explain/format.js";
import type { JobLogLine } from "../input.js";
import type { MemoryProfile } from "../memory-profile.js";

/** One sign that the job (or part of it) was killed for memory. */
export interface OomSignal {
  /** How strongly this sign alone says "killed for memory". */
  readonly confidence: number;
  readonly evidence: readonly EvidenceRef[];
  /** The node it points at, when it names one. */
  readonly node?: string;
  /** Which limit was hit, in words ("the job's cgroup limit", "step 0"), when the sign says. */
  readonly scope?: string;
}

/** SLURM's own words when it kills for memory (jobacct polling, and the cgroup plugin's epilog check). */
const SLURM_OOM_LINE =
  /exceeded (?:job |step )?memory limit|Detected \d+ oom[-_]kill event|task \d+: Out Of Memory/i;

/** Every sign of an out-of-memory kill in the input, strongest first. */
export function oomSignals(ctx: RuleContext, profiles: readonly MemoryProfile[]): OomSignal[] {
  const out: OomSignal[] = [];
  const o = ctx.record.outcome;
  const t = ctx.thresholds;
  if (o?.state === "OUT_OF_MEMORY") {
    out.push({
      confidence: 0.95,
      evidence: present(
        schedulerEvidence(ctx, "outcome.state", "The scheduler recorded the job as OUT_OF_MEMORY."),
      ),
    });
  }
  if (o?.reason && /OOMKilled|out[ _-]?of[ _-]?memory/i.test(o.reason)) {
    out.push({
      confidence: 0.95,
      evidence: present(schedulerEvidence(ctx, "outcome.reason", `The scheduler's reason is ${o.reason}.`)),
    });
  }
  for (const e of ctx.events) {
    if (e.kind !== "oom_kill" || !attributable(ctx, e)) continue;
    out.push({
      confidence: 0.95,
      node: e.node,
      scope: scopeOfCgroup(e.oomKill?.memoryCgroup),
      evidence: [eventEvidence(e, killText(e))],
    });
  }
  for (const p of profiles) {
    const rise = p.oomKillRise;
    if (!rise) continue;
    const pair = rise.before ? [rise.before, rise.after] : [rise.after];
    const ev = metricEvidence(
      p.node,
      "memory.oomKillEvents",
      pair,
      `memory.events oom_kill on ${p.node} rose to ${rise.after.memory!.oomKillEvents} by ${rise.after.time}: the kernel killed a process of the job for memory.`,
    );
    out.push({ confidence: 0.95, node: p.node, evidence: present(ev) });
  }
  for (const line of ctx.input.logLines ?? []) {
    if (!SLURM_OOM_LINE.test(line.line)) continue;
    out.push({
      confidence: 0.9,
      scope: scopeOfLogLine(line),
      evidence: [logEvidence(line, "The job's output reports a kill for memory.")],
    });
  }
  out.push(...stepSignals(ctx));
  const signal9 = o?.signal === 9;
  const nearest = nearestToLimit(profiles);
  const peakRecord = ctx.record.peaks?.memoryBytes;
  const share =
    nearest?.peakBytes !== undefined && nearest.limitBytes
      ? nearest.peakBytes / nearest.limitBytes
      : undefined;
  const recordShare =
    peakRecord !== undefined && ctx.requestedMemoryPerNode
      ? peakRecord / ctx.requestedMemoryPerNode
      : undefined;
  const best = Math.max(share ?? -1, recordShare ?? -1);
  if (signal9 && best >= t.atLimitShare) {
    out.push({
      confidence: 0.85,
      node: nearest?.node,
      evidence: present(
        schedulerEvidence(ctx, "outcome.signal", "The job was killed by signal 9 (SIGKILL)."),
        recordShare !== undefined && recordShare >= t.atLimitShare
          ? schedulerEvidence(
              ctx,
              "peaks.memoryBytes",
              `Its recorded peak memory was ${formatBytes(peakRecord!)}, ${formatShare(recordShare!)} of its ${formatBytes(ctx.requestedMemoryPerNode!)} request.`,
            )
          : undefined,
        share !== undefined && share >= t.atLimitShare ? peakEvidence(nearest!) : undefined,
      ),
    });
  }
  if (o?.exitCode === 137 && !(best >= 0 && best < t.notMemoryBelowShare)) {
    out.push({
      confidence: best >= t.atLimitShare ? 0.85 : 0.6,
      node: nearest?.node,
      evidence: present(
        schedulerEvidence(
          ctx,
          "outcome.exitCode",
          "Exit code 137 is 128 + 9: the process was killed by SIGKILL, the usual mark of an OOM kill.",
        ),
        best >= t.atLimitShare && nearest ? peakEvidence(nearest) : undefined,
      ),
    });
  }
  return out.filter((s) => s.evidence.length > 0).sort((a, b) => b.confidence - a.confidence);
}

function stepSignals(ctx: RuleContext): OomSignal[] {
  const out: OomSignal[] = [];
  (ctx.record.steps ?? []).forEach((st: JobStep, i) => {
    const limit = st.memoryLimitBytes ?? ctx.requestedMemoryPerNode;
    const over =
      st.maxRssBytes !== undefined &&
      limit !== undefined &&
      st.maxRssBytes >= ctx.thresholds.atLimitShare * limit;
    if (st.state !== "OUT_OF_MEMORY" && !(st.signal === 9 && over)) return;
    out.push({
      confidence: st.state === "OUT_OF_MEMORY" ? 0.95 : 0.85,
      scope: `step ${st.stepId}`,
      evidence: present(
        st.state === "OUT_OF_MEMORY"
          ? schedulerEvidence(ctx, `steps.${i}.state`, `Step ${st.stepId} ended OUT_OF_MEMORY.`)
          : schedulerEvidence(ctx, `steps.${i}.signal`, `Step ${st.stepId} was killed by signal 9.`),
        over
          ? schedulerEvidence(
              ctx,
              `steps.${i}.maxRssBytes`,
              `Step ${st.stepId}'s largest resident set (MaxRSS) was ${formatBytes(st.maxRssBytes!)}, ${formatShare(st.maxRssBytes! / limit!)} of its ${formatBytes(limit!)} limit.`,
            )
          : undefined,
      ),
    });
  });
  return out;
}

function peakEvidence(p: MemoryProfile): EvidenceRef | undefined {
  const s = p.peakSample ?? p.maxCurrent;
  if (!s) return undefined;
  const metric = p.peakSample ? "memory.peakBytes" : "memory.currentBytes";
  return metricEvidence(
    p.node,
    metric,
    [s],
    `Memory on ${p.node} reached ${formatBytes(p.peakBytes!)} of its ${formatBytes(p.limitBytes!)} limit.`,
  );
}

function nearestToLimit(profiles: readonly MemoryProfile[]): MemoryProfile | undefined {
  let best: MemoryProfile | undefined;
  let bestShare = -1;
  for (const p of profiles) {
    if (p.peakBytes === undefined || !p.limitBytes) continue;
    const share = p.peakBytes / p.limitBytes;
    if (share > bestShare) {
      best = p;
      bestShare = share;
    }
  }
  return best;
}

/** A kernel OOM kill belongs to the job when the collector said so, its cgroup names the job, or it killed one of the job's processes. */
function attributable(ctx: RuleContext, e: NodeEvent): boolean {
  if (e.jobId === ctx.record.jobId) return true;
  const id = ctx.record.jobId;
  const paths = [e.oomKill?.memoryCgroup, e.oomKill?.taskCgroup].filter((p): p is string => !!p);
  if (paths.some((p) => p.includes(`job_${id}/`) || p.endsWith(`job_${id}`))) return true;
  const pid = e.oomKill?.pid;
  const samples = ctx.series.get(e.node) ?? [];
  return pid !== undefined && samples.some((s) => s.processes?.some((p) => p.pid === pid));
}

function killText(e: NodeEvent): string {
  const k = e.oomKill;
  if (!k) return `The kernel OOM killer fired on ${e.node}.`;
  const parts = [
    k.anonRssBytes !== undefined ? `anon-rss ${formatBytes(k.anonRssBytes)}` : undefined,
    k.fileRssBytes !== undefined ? `file-rss ${formatBytes(k.fileRssBytes)}` : undefined,
    k.shmemRssBytes !== undefined ? `shmem-rss ${formatBytes(k.shmemRssBytes)}` : undefined,
  ].filter(Boolean);
  return `The kernel killed ${k.processName} (pid ${k.pid}) on ${e.node}${parts.length ? ` holding ${parts.join(", ")}` : ""}.`;
}

/** Which limit an `oom_memcg=` path names. */
export function scopeOfCgroup(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const step = /\/step_([^/]+)$/.exec(path);
  if (step) return `step ${step[1]}`;
  if (/\/job_[^/]+$/.test(path)) return "the job's cgroup limit";
  if (/(cri-containerd|docker|crio)-[0-9a-f]+\.scope$/.test(path)) return "the container's limit";
  if (/pod[0-9a-f_-]+\.slice$/.test(path)) return "the pod's limit";
  return `the limit of cgroup ${path}`;
}

function scopeOfLogLine(line: JobLogLine): string | undefined {
  const m =
    /StepId=[^.\s]+\.(\S+?)(?:\s|$)/.exec(line.line) ?? /step [^.\s]+\.(\S+?)(?:\s|$)/i.exec(line.line);
  return m ? `step ${m[1]}` : undefined;
}
