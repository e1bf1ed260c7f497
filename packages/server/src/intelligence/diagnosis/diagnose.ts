import type { Diagnosis, Finding, FindingKind, Unseen } from "@jobsight/schemas";
import { buildContext } from "./context.js";
import { buildAgentPrompt } from "./explain/agent-prompt.js";
import { explainsFailure } from "./explain/finding-labels.js";
import { buildSummary } from "./explain/summary.js";
import type { DiagnosisInput } from "./input.js";
import { rankFindings } from "./ranking.js";
import { ALL_RULES } from "./rules/all-rules.js";
import type { DiagnosisRule } from "./rules/rule.js";
import { DIAGNOSIS_THRESHOLDS, type DiagnosisThresholds } from "./thresholds.js";
import { sourcesUnseen } from "./unseen.js";

/** Options of {@link diagnose}. */
export interface DiagnoseOptions {
  /**
   * The thresholds the rules judge by.
   * @default DIAGNOSIS_THRESHOLDS
   */
  readonly thresholds?: DiagnosisThresholds;
  /**
   * The diagnosis's `generatedAt` (RFC 3339); set it for reproducible output.
   * @default the current time
   */
  readonly now?: string;
  /**
   * The rules to run, in order.
   * @default ALL_RULES
   */
  readonly rules?: readonly DiagnosisRule[];
}

/** An oversubscription finding that counted runnable threads, the job's or its lone node's (not pressure alone). */
const countsThreads = (f: Finding) =>
  f.evidence.some((e) => e.metric === "cpu.runnableThreads" || e.metric === "cpu.nodeRunnable");

/** When `winner` is present (and `when` holds of the two), `loser` says nothing more and is dropped. */
const SUPERSEDES: readonly {
  readonly winner: FindingKind;
  readonly loser: FindingKind;
  readonly when?: (winner: Finding, loser: Finding) => boolean;
}[] = [
  // The stalled-loader claim already says the GPUs sat idle, and why.
  { winner: "stalled_data_loader", loser: "gpu_underutilised" },
  // Runnable threads counted above the cores: the thread count is the cause, throttling its
  // symptom, and the oversubscription claim cites the throttled time.
  { winner: "cpu_oversubscribed", loser: "cpu_throttled", when: (w) => countsThreads(w) },
  // Under a CPU quota, contention shows as throttling; pressure alone adds nothing.
  { winner: "cpu_throttled", loser: "cpu_oversubscribed", when: (_w, l) => !countsThreads(l) },
];

/**
 * Diagnoses a job from what was observed: runs every rule, ranks the findings (causes before the
 * symptoms they caused, each with the span of time it covers), decides whether the failure's cause
 * was determined, lists what could not be seen (sources, and claims too little data could judge),
 * and writes a summary and a prompt for a coding agent. A pure function of its input.
 *
 * @example
 * ```ts
 * const d = diagnose({ record, samples, events, sourcesSeen: {} }, { now: "2026-12-02T10:00:00Z" });
 * d.findings[0]?.kind; // "oom_kill"
 * ```
 */
export function diagnose(input: DiagnosisInput, options: DiagnoseOptions = {}): Diagnosis {
  const ctx = buildContext(input, options.thresholds ?? DIAGNOSIS_THRESHOLDS);
  const found: Finding[] = [];
  const ruleUnseen: Unseen[] = [];
  for (const rule of options.rules ?? ALL_RULES) {
    try {
      const r = rule.evaluate(ctx, found);
      found.push(...r.findings);
      ruleUnseen.push(...(r.unseen ?? []));
    } catch (err) {
      // One rule tripping on odd data must not cost the rest of the diagnosis; say it was not judged.
      ruleUnseen.push({
        source: `rule:${rule.name}`,
        reason: `The ${rule.name} rule could not run: ${String(err)}`.slice(0, 1024),
      });
    }
  }
  const findings = rankFindings(
    found.filter(
      (f) =>
        !SUPERSEDES.some(
          (r) => f.kind === r.loser && found.some((w) => w.kind === r.winner && (r.when?.(w, f) ?? true)),
        ),
    ),
    ctx.window,
  );
  const causeDetermined = !ctx.failed || findings.some(explainsFailure);
  const unseen = dedupeUnseen([...sourcesUnseen(ctx), ...ruleUnseen]);
  const record = input.record;
  return {
    cluster: record.cluster,
    jobId: record.jobId,
    generatedAt: options.now ?? new Date().toISOString(),
    ...(record.outcome ? { state: record.outcome.state } : {}),
    causeDetermined,
    summary: buildSummary(record, findings, unseen, causeDetermined),
    findings,
    unseen,
    agentPrompt: buildAgentPrompt({
      record,
      findings,
      unseen,
      causeDetermined,
      submission: input.submission,
    }),
  };
}

function dedupeUnseen(items: readonly Unseen[]): Unseen[] {
  const seen = new Set<string>();
  return items.filter((u) => {
    const key = JSON.stringify([u.source, u.reason, u.window]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
