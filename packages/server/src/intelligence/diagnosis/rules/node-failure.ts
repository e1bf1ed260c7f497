import type { EvidenceRef } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { metricEvidence, present, schedulerEvidence } from "../evidence.js";
import { formatDuration, ms } from "../explain/format.js";
import { readMetric } from "../metric-paths.js";
import { medianInterval } from "../series.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

const NODE_REASON = /NodeLost|NodeShutdown|node (?:failure|failed|down|lost|not ready)/i;

/** Node failure: the scheduler ended the job because its node failed (NODE_FAIL, or a lost node). */
export const nodeFailureRule: DiagnosisRule = {
  name: "node-failure",
  evaluate(ctx) {
    const reason = ctx.record.outcome?.reason;
    const byReason = reason !== undefined && NODE_REASON.test(reason);
    if (ctx.state !== "NODE_FAIL" && !byReason) return NOTHING;
    const sentences = [
      `The node the job ran on failed${reason ? ` (${reason})` : ""}: the job was ended by the node's failure, not by its own code.`,
    ];
    const evidence: EvidenceRef[] = present(
      ctx.state === "NODE_FAIL"
        ? schedulerEvidence(ctx, "outcome.state", "The scheduler recorded the job as NODE_FAIL.")
        : undefined,
      reason ? schedulerEvidence(ctx, "outcome.reason", `The scheduler's reason: ${reason}.`) : undefined,
    );
    const silent = lastReadings(ctx);
    sentences.push(...silent.sentences);
    evidence.push(...silent.evidence);
    return {
      findings: [
        { kind: "node_failure", severity: "error", claim: sentences.join(" "), confidence: 0.95, evidence },
      ],
    };
  },
};

/** When each node last reported, if well before the recorded end (the node went silent). */
export function lastReadings(ctx: RuleContext): { sentences: string[]; evidence: EvidenceRef[] } {
  const sentences: string[] = [];
  const evidence: EvidenceRef[] = [];
  const end = ctx.record.endedAt;
  if (!end) return { sentences, evidence };
  for (const [node, samples] of ctx.series) {
    const last = samples[samples.length - 1];
    if (!last || last.final) continue;
    const silentFor = (ms(end) - ms(last.time)) / 1000;
    // Silent for longer than a sampling gap: the node stopped reporting before the end.
    const interval = medianInterval(samples) ?? Number.POSITIVE_INFINITY;
    if (silentFor <= ctx.thresholds.gapIntervalMultiple * interval) continue;
    const metric = ["memory.currentBytes", "cpu.usageSeconds", "pids"].find(
      (m) => readMetric(last, m) !== undefined,
    );
    const ev = metric
      ? metricEvidence(node, metric, [last], `The last reading from ${node} came at ${last.time}.`)
      : undefined;
    if (!ev) continue;
    sentences.push(
      `The last reading from ${node} came at ${last.time}, ${formatDuration(silentFor)} before the scheduler recorded the end.`,
    );
    evidence.push(ev);
  }
  return { sentences, evidence };
}
