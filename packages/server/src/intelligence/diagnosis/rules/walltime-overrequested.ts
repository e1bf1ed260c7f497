import { present, schedulerEvidence } from "../evidence.js";
import { formatDuration, formatShare } from "../explain/format.js";
import { runTimeEvidence, walltimeLimit } from "../run-time.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/** Walltime over-requested: a completed job that used a small share of a long walltime request. */
export const walltimeOverrequestedRule: DiagnosisRule = {
  name: "walltime-overrequested",
  evaluate(ctx) {
    const t = ctx.thresholds;
    const limit = walltimeLimit(ctx);
    if (ctx.state !== "COMPLETED" || ctx.failed || !limit || ctx.runSeconds === undefined) return NOTHING;
    if (limit.seconds < t.walltimeMinRequestSeconds || ctx.runSeconds >= t.walltimeUsedShare * limit.seconds)
      return NOTHING;
    return {
      findings: [
        {
          kind: "walltime_overrequested",
          severity: "warning",
          claim: `The job asked for ${formatDuration(limit.seconds)} of walltime and finished in ${formatDuration(ctx.runSeconds)} (${formatShare(ctx.runSeconds / limit.seconds)} of it); a long request waits longer in the queue and fits fewer backfill slots.`,
          confidence: 0.9,
          evidence: [
            ...present(
              schedulerEvidence(ctx, limit.field, `Walltime limit: ${formatDuration(limit.seconds)}.`),
            ),
            ...runTimeEvidence(ctx),
          ],
        },
      ],
    };
  },
};
