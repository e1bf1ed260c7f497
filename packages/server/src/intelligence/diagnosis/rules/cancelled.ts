import { present, schedulerEvidence } from "../evidence.js";
import { formatDuration } from "../explain/format.js";
import { runTimeEvidence } from "../run-time.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/** Cancellation: someone (the user, an administrator, a workflow tool) cancelled the job. */
export const cancelledRule: DiagnosisRule = {
  name: "cancelled",
  evaluate(ctx) {
    if (ctx.state !== "CANCELLED") return NOTHING;
    const reason = ctx.record.outcome?.reason;
    const started = ctx.record.startedAt !== undefined;
    const when = !started
      ? "before it started"
      : ctx.runSeconds !== undefined
        ? `after running ${formatDuration(ctx.runSeconds)}`
        : "while it ran";
    return {
      findings: [
        {
          kind: "cancelled",
          severity: "error",
          claim: `The job was cancelled ${when}${reason ? ` (${reason})` : ""}: it was stopped from outside and did not fail on its own.`,
          confidence: 0.95,
          evidence: [
            ...present(
              schedulerEvidence(ctx, "outcome.state", "The scheduler recorded the job as CANCELLED."),
              reason
                ? schedulerEvidence(ctx, "outcome.reason", `The scheduler's reason: ${reason}.`)
                : undefined,
            ),
            ...runTimeEvidence(ctx),
          ],
        },
      ],
    };
  },
};
