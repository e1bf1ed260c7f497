import type { EvidenceRef } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { crashClaim } from "../crash/crash-claim.js";
import { crashSignature } from "../crash/crash-signature.js";
import { jobLogLines, STDERR_TAIL_SOURCE } from "../crash/stderr-lines.js";
import { logEvidence, present, schedulerEvidence } from "../evidence.js";
import type { JobLogLine } from "../input.js";
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
 * failure, preemption, cancellation or timeout). Names the exit code or signal; when its output
 * (uploaded logs, or the stderr tail in the record) shows a CUDA out-of-memory, a Python exception,
 * a segmentation fault or an MPI abort, says which and cites those lines, else quotes the last
 * error lines and says the cause was not determined.
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
    evidence.push(...derivedEvidence(ctx));
    const blind = blindSpots(ctx);
    const unseen = blind.length
      ? ` ${capitalise(blind.join(" and "))} ${blind.length > 1 ? "were" : "was"} not read, so a kill or fault there may have gone unseen.`
      : "";
    const all = jobLogLines(ctx.input);
    const crash = crashSignature(all, o, ctx.record.steps);
    if (crash) {
      evidence.push(...crash.lines.map((l) => lineEvidence(ctx, l, "The job's output names the crash.")));
      const claim = crashClaim(crash, how) + unseen;
      return { findings: [{ kind: "job_error", severity: "error", claim, confidence: 0.8, evidence }] };
    }
    const lines = all.filter((l) => ERROR_LINE.test(l.line)).slice(-QUOTED_LINES);
    evidence.push(...lines.map((l) => lineEvidence(ctx, l, "A line of the job's output.")));
    const claim =
      `The job's own program ${how}. Nothing Jobsight observed explains it (it saw no memory kill, GPU fault, node failure, preemption, cancellation or timeout): the cause was not determined.` +
      (lines.length ? " The job's output ends with the error lines quoted." : "") +
      unseen;
    return { findings: [{ kind: "job_error", severity: "error", claim, confidence: 0.5, evidence }] };
  },
};

/** SLURM's DerivedExitCode when it says more than 0: the worst of the steps'. */
function derivedEvidence(ctx: RuleContext): EvidenceRef[] {
  const o = ctx.record.outcome!;
  return present(
    o.derivedSignal !== undefined
      ? schedulerEvidence(
          ctx,
          "outcome.derivedSignal",
          `DerivedExitCode: a step ended by signal ${o.derivedSignal}.`,
        )
      : undefined,
    o.derivedExitCode !== undefined
      ? schedulerEvidence(
          ctx,
          "outcome.derivedExitCode",
          `DerivedExitCode: a step exited ${o.derivedExitCode}.`,
        )
      : undefined,
  );
}

/** A cited line, saying which file the stderr tail was read from. */
function lineEvidence(ctx: RuleContext, line: JobLogLine, text: string): EvidenceRef {
  const tail = ctx.record.outcome?.stderrTail;
  if (line.source !== STDERR_TAIL_SOURCE || !tail) return logEvidence(line, text);
  return {
    ...logEvidence(line, `${text} Read from ${tail.path} (its last 8 KiB at most) after the job ended.`),
    metric: "outcome.stderrTail",
  };
}

function blindSpots(ctx: RuleContext): string[] {
  const out: string[] = [];
  if (ctx.kernelLogUnreadable.size > 0)
    out.push(`the kernel log of ${[...ctx.kernelLogUnreadable].join(", ")}`);
  if (ctx.series.size === 0) out.push("the job's usage samples");
  return out;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
