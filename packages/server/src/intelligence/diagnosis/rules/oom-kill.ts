import type { Unseen } from "@jobsight/schemas";
import { dedupeEvidence } from "../evidence.js";
import { memoryProfiles } from "../memory-profile.js";
import { oomDetail } from "./oom-detail.js";
import { oomSignals } from "./oom-signals.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/** States in which a memory kill cannot be what ended the job: something else did. */
const ENDED_BY_OTHER = new Set(["COMPLETED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "PREEMPTED"]);

/**
 * Out-of-memory kill: from the scheduler (OUT_OF_MEMORY, OOMKilled, exit 137, SIGKILL at the limit,
 * a step killed at its limit), the kernel (oom-kill line, `memory.events oom_kill`) or SLURM's own
 * message in the job's output; then what held the memory, which limit was hit, and how memory got
 * there. An error when it ended the job; a warning when the job went on (a step or a worker killed).
 */
export const oomKillRule: DiagnosisRule = {
  name: "oom-kill",
  evaluate(ctx) {
    const profiles = memoryProfiles(ctx);
    const signals = oomSignals(ctx, profiles);
    if (signals.length === 0) return NOTHING;
    const node =
      signals.find((s) => s.node)?.node ??
      (profiles.length === 1 ? profiles[0].node : undefined) ??
      ctx.nodes[0];
    const profile = profiles.find((p) => p.node === node);
    const scope = signals.find((s) => s.scope)?.scope;
    const endedJob = ctx.failed && !ENDED_BY_OTHER.has(ctx.state ?? "");
    const detail = profile ? oomDetail(ctx, profile) : { sentences: [], evidence: [] };
    const where = node ? ` on ${node}` : "";
    const lead = endedJob
      ? `The job was killed for exceeding its memory${where}${scope ? `; the limit hit was ${scope}` : ""}.`
      : `Part of the job was killed for memory${where}${scope ? ` (${scope})` : ""}, but the job went on and ended ${ctx.state ?? "later"}; its results may be incomplete.`;
    const evidence = dedupeEvidence([...signals.flatMap((s) => s.evidence), ...detail.evidence]);
    const unseen: Unseen[] = [];
    if (profile && !profile.breakdown) {
      unseen.push({
        source: "memory-stat",
        reason: `No memory.stat breakdown (anon, file, shmem) from ${profile.node}: what held the memory at the kill cannot be told.`,
      });
    }
    return {
      findings: [
        {
          kind: "oom_kill",
          severity: endedJob ? "error" : "warning",
          claim: [lead, ...detail.sentences].join(" ").slice(0, 2048),
          confidence: signals[0].confidence,
          evidence,
        },
      ],
      unseen,
    };
  },
};
