import type { EvidenceRef } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { logEvidence, present, schedulerEvidence } from "../evidence.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

const SIGNALS: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  4: "SIGILL",
  6: "SIGABRT",
  7: "SIGBUS",
  8: "SIGFPE",
  9: "SIGKILL",
  11: "SIGSEGV",
  13: "SIGPIPE",
  15: "SIGTERM",
};

/** Lines of a job's output that usually carry the reason for a crash. */
const ERROR_LINE = /Traceback|Error\b|error:|Exception|Segmentation fault|core dumped|Aborted|FATAL|panic:/;
const QUOTED_LINES = 3;

/**
 * The job's own failure: it failed and no other rule explains why (no memory kill, GPU fault, node
 * failure, preemption, cancellation or timeout). Names the exit code or signal, quotes the last
 * error lines of its output when given, and says the cause was not determined.
 */
export const jobErrorRule: DiagnosisRule = {
  name: "job-error",
  evaluate(ctx, prior) {
    if (!ctx.failed || prior.some((f) => f.severity === "error")) return NOTHING;
    const o = ctx.record.outcome!;
    const evidence: EvidenceRef[] = present(
      schedulerEvidence(ctx, "outcome.state", `The scheduler recorded the job as ${o.state}.`),
    );
    let how: string;
    if (o.signal !== undefined) {
      how = `was killed by signal ${o.signal}${SIGNALS[o.signal] ? ` (${SIGNALS[o.signal]})` : ""}`;
      evidence.push(...present(schedulerEvidence(ctx, "outcome.signal", `Signal ${o.signal}.`)));
    } else if ((o.exitCode ?? 0) > 128 && SIGNALS[o.exitCode! - 128]) {
      how = `ended with exit code ${o.exitCode} (128 + ${o.exitCode! - 128}: killed by ${SIGNALS[o.exitCode! - 128]})`;
      evidence.push(...present(schedulerEvidence(ctx, "outcome.exitCode", `Exit code ${o.exitCode}.`)));
    } else if ((o.exitCode ?? 0) > 0) {
      how = `ended with exit code ${o.exitCode}`;
      evidence.push(...present(schedulerEvidence(ctx, "outcome.exitCode", `Exit code ${o.exitCode}.`)));
    } else {
      how =
        o.exitCode === 0
          ? "failed, though the exit code recorded is 0 (SLURM 22.05's sacct --json reports non-zero exit codes as 0, so the real code is unknown)"
          : "failed with no exit code recorded";
    }
    const lines = errorLines(ctx);
    evidence.push(...lines.map((l) => logEvidence(l, "A line of the job's output.")));
    const blind = blindSpots(ctx);
    const claim =
      `The job's own program ${how}. Nothing Jobsight observed explains it (it saw no memory kill, GPU fault, node failure, preemption, cancellation or timeout): the cause was not determined.` +
      (lines.length ? " The job's output ends with the error lines quoted." : "") +
      (blind.length
        ? ` ${capitalise(blind.join(" and "))} could not be read, so a kill or fault there may have gone unseen.`
        : "");
    return { findings: [{ kind: "job_error", severity: "error", claim, confidence: 0.5, evidence }] };
  },
};

function errorLines(ctx: RuleContext) {
  const lines = ctx.input.logLines ?? [];
  return lines.filter((l) => ERROR_LINE.test(l.line)).slice(-QUOTED_LINES);
}

function blindSpots(ctx: RuleContext): string[] {
  const out: string[] = [];
  if (ctx.kernelLogUnreadable.size > 0)
    out.push(`the kernel log of ${[...ctx.kernelLogUnreadable].join(", ")}`);
  if (ctx.series.size === 0) out.push("the job's usage samples");
  return out;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
