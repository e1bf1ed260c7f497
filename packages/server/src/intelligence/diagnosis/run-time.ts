import type { EvidenceRef } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import { present, schedulerEvidence } from "./evidence.js";
import { formatDuration } from "./explain/format.js";

/** The walltime limit of the job and the record field it was read from. */
export function walltimeLimit(ctx: RuleContext): { seconds: number; field: string } | undefined {
  const a = ctx.record.allocated?.walltimeSeconds;
  if (a !== undefined) return { seconds: a, field: "allocated.walltimeSeconds" };
  const r = ctx.record.spec.requested.walltimeSeconds;
  return r !== undefined ? { seconds: r, field: "spec.requested.walltimeSeconds" } : undefined;
}

/** Evidence for the job's run time: the recorded run time, else its start and end. */
export function runTimeEvidence(ctx: RuleContext): EvidenceRef[] {
  if (ctx.runSeconds === undefined) return [];
  if (ctx.record.peaks?.runTimeSeconds !== undefined) {
    return present(
      schedulerEvidence(ctx, "peaks.runTimeSeconds", `The job ran ${formatDuration(ctx.runSeconds)}.`),
    );
  }
  return present(
    schedulerEvidence(ctx, "startedAt", `The job started at ${ctx.record.startedAt}.`),
    schedulerEvidence(
      ctx,
      "endedAt",
      `The job ended at ${ctx.record.endedAt} (${formatDuration(ctx.runSeconds)} later).`,
    ),
  );
}
