import { present, schedulerEvidence } from "../evidence.js";
import { formatDuration } from "../explain/format.js";
import { runTimeEvidence } from "../run-time.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/** Preemption: the scheduler stopped the job to make room for other work (PREEMPTED, or a preemption reason). */
export const preemptedRule: DiagnosisRule = {
  name: "preempted",
  evaluate(ctx) {
    const reason = ctx.record.outcome?.reason;
    const byReason = reason !== undefined && /preempt/i.test(reason);
    if (ctx.state !== "PREEMPTED" && !byReason) return NOTHING;
    const where = [
      ctx.record.spec.partition && `partition ${ctx.record.spec.partition}`,
      ctx.record.spec.qos && `QOS ${ctx.record.spec.qos}`,
    ]
      .filter(Boolean)
      .join(", ");
    return {
      findings: [
        {
          kind: "preempted",
          severity: "error",
          claim:
            `The scheduler preempted the job${where ? ` (${where})` : ""} to make room for other work${ctx.runSeconds !== undefined ? ` after ${formatDuration(ctx.runSeconds)}` : ""}: it did not fail on its own.` +
            (reason ? ` Reason: ${reason}.` : ""),
          confidence: 0.95,
          evidence: [
            ...present(
              ctx.state === "PREEMPTED"
                ? schedulerEvidence(ctx, "outcome.state", "The scheduler recorded the job as PREEMPTED.")
                : undefined,
              reason
                ? schedulerEvidence(ctx, "outcome.reason", `The scheduler's reason: ${reason}.`)
                : undefined,
              ctx.record.spec.partition
                ? schedulerEvidence(ctx, "spec.partition", `Partition: ${ctx.record.spec.partition}.`)
                : undefined,
              ctx.record.spec.qos
                ? schedulerEvidence(ctx, "spec.qos", `QOS: ${ctx.record.spec.qos}.`)
                : undefined,
            ),
            ...runTimeEvidence(ctx),
          ],
        },
      ],
    };
  },
};
