import type { Finding, FindingKind } from "@jobsight/schemas";
import type { Window } from "./context.js";
import { ms } from "./explain/format.js";

/**
 * Where each kind of finding stands in a chain of cause and effect, lowest first. A failed node or
 * GPU takes everything on it down; an out-of-memory kill or a GPU error of the job's own code
 * ends or breaks the run; a timeout, a cancel or an exit code is how the run ended, which those can
 * cause (a killed worker leaves the job hanging until its limit); slow input and CPU contention
 * explain the waste that comes last.
 */
const CAUSE_ORDER: Readonly<Record<FindingKind, number>> = {
  node_failure: 0,
  gpu_fault_hardware: 0,
  preempted: 1,
  oom_kill: 2,
  gpu_fault_application: 2,
  timeout: 3,
  cancelled: 3,
  job_error: 3,
  stalled_data_loader: 4,
  cpu_throttled: 4,
  cpu_oversubscribed: 4,
  gpus_unused: 5,
  gpu_underutilised: 5,
  gpu_memory_overreserved: 5,
  cpu_low_efficiency: 5,
  memory_overrequested: 5,
  walltime_overrequested: 5,
};

/** Findings about the run as a whole: they cover the job's window, whatever their evidence spans. */
const WHOLE_RUN = new Set<FindingKind>([
  "node_failure",
  "preempted",
  "cancelled",
  "timeout",
  "job_error",
  "memory_overrequested",
  "walltime_overrequested",
]);

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/**
 * Orders findings causes first (see {@link CAUSE_ORDER}), then by severity, confidence and time,
 * and gives each its `rank` (1 first) and the `window` it covers: the job's run for claims about
 * the run, else the span of its evidence.
 *
 * @example
 * ```ts
 * rankFindings([timeout, oom, xid79], run).map((f) => [f.rank, f.kind]);
 * // [[1, "gpu_fault_hardware"], [2, "oom_kill"], [3, "timeout"]]
 * ```
 */
export function rankFindings(findings: readonly Finding[], run: Window | undefined): Finding[] {
  const placed = findings.map((f, i) => ({ f: withWindow(f, run), i }));
  const start = (f: Finding) => (f.window ? ms(f.window.start) : Number.POSITIVE_INFINITY);
  return placed
    .sort(
      (a, b) =>
        CAUSE_ORDER[a.f.kind] - CAUSE_ORDER[b.f.kind] ||
        SEVERITY_ORDER[a.f.severity] - SEVERITY_ORDER[b.f.severity] ||
        b.f.confidence - a.f.confidence ||
        start(a.f) - start(b.f) ||
        a.i - b.i,
    )
    .map(({ f }, i) => {
      const { kind, severity, window, claim, confidence, evidence, ...rest } = f;
      return {
        ...rest,
        kind,
        severity,
        rank: i + 1,
        ...(window ? { window } : {}),
        claim,
        confidence,
        evidence,
      };
    });
}

function withWindow(f: Finding, run: Window | undefined): Finding {
  if (f.window) return f;
  const spans = f.evidence.flatMap((e) => (e.window ? [e.window] : []));
  const window =
    WHOLE_RUN.has(f.kind) || spans.length === 0
      ? run
      : spans.reduce((a, w) => ({
          start: ms(w.start) < ms(a.start) ? w.start : a.start,
          end: ms(w.end) > ms(a.end) ? w.end : a.end,
        }));
  return window ? { ...f, window } : f;
}
