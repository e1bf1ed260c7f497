import type { AdviceEntry, AdviceHistory, AdvisingModel, ResourceName } from "@jobsight/schemas";
import type {
  AdviceGroup,
  AdvisingModelRow,
  RecordedAdvice,
  RecordedEvidence,
  RecordedResource,
} from "../../data-plane/queries/recorded-advice.js";
import { ALL_RESOURCES } from "../resources.js";
import { type AdviceSide, explainChange } from "./advice-change.js";

/** What {@link adviceHistory} is made from: the job, the period read, and the advice recorded in it. */
export type AdviceHistoryInput = {
  cluster: string;
  jobId: string;
  /** The period read (RFC 3339). */
  from: string;
  to: string;
  advice: RecordedAdvice;
};

/**
 * How the advice for a job changed across model versions, and why: per resource, one entry per
 * change of the advice (status, value, range, confidence or reason), each with the versions that
 * gave it, when and how often, and what changed in plain words (see `explainChange`). Advice that
 * stayed the same when another version took over is one entry naming both versions.
 *
 * @example
 * ```ts
 * const advice = await recordedAdvice(pool, { cluster, linkKey: linkKeyOf(job.spec), from, to });
 * const history = adviceHistory({ cluster, jobId: job.jobId, from: from.toISOString(), to: to.toISOString(), advice });
 * history.resources[0].history.map((e) => e.why);
 * ```
 */
export function adviceHistory(input: AdviceHistoryInput): AdviceHistory {
  const { groups, models: rows } = input.advice;
  const models = new Map(rows.map((m) => [m.version, m]));
  const out: AdviceHistory = {
    cluster: input.cluster,
    jobId: input.jobId,
    from: input.from,
    to: input.to,
    asked: input.advice.asked,
    models: advisingModels(groups, models),
    resources: [],
  };
  if (input.advice.truncated) out.truncated = true;
  for (const resource of ALL_RESOURCES) {
    const history = resourceHistory(resource, groups, models);
    if (history.entries.length === 0) continue;
    out.resources.push({
      resource,
      ...(history.unit ? { unit: history.unit } : {}),
      history: history.entries,
    });
  }
  return out;
}

function advisingModels(
  groups: readonly AdviceGroup[],
  rows: ReadonlyMap<string, AdvisingModelRow>,
): AdvisingModel[] {
  const byVersion = new Map<string, AdvisingModel>();
  for (const g of groups) {
    const seen = byVersion.get(g.modelVersion);
    if (seen) {
      seen.lastAsked = g.lastAsked;
      seen.asked += g.asked;
      continue;
    }
    const row = rows.get(g.modelVersion);
    byVersion.set(g.modelVersion, {
      version: g.modelVersion,
      ...(row ? { trainedAt: row.trainedAt, trainingJobs: row.trainingJobs } : {}),
      ...(row?.dataStart ? { trainingDataStart: row.dataStart } : {}),
      ...(row?.dataEnd ? { trainingDataEnd: row.dataEnd } : {}),
      firstAsked: g.firstAsked,
      lastAsked: g.lastAsked,
      asked: g.asked,
    });
  }
  return [...byVersion.values()];
}

/** The advice for one resource, merged where it stayed the same. */
function resourceHistory(
  resource: ResourceName,
  groups: readonly AdviceGroup[],
  models: ReadonlyMap<string, AdvisingModelRow>,
): { unit?: RecordedResource["unit"]; entries: AdviceEntry[] } {
  const entries: AdviceEntry[] = [];
  let unit: RecordedResource["unit"];
  // The latest advice: its entry, and the side the next change is compared with.
  let last: { entry: AdviceEntry; side: AdviceSide } | undefined;
  for (const g of groups) {
    const r = g.resources.find((x) => x.resource === resource);
    if (!r) continue;
    unit ??= r.unit;
    const latest: AdviceSide = {
      version: g.modelVersion,
      resource: r,
      evidence: evidenceOf(g.lastEvidence, resource),
    };
    if (last && sameAdvice(last.side.resource, r)) {
      const e = last.entry;
      e.lastAsked = g.lastAsked;
      e.asked += g.asked;
      if (!e.modelVersions.includes(g.modelVersion)) e.modelVersions.push(g.modelVersion);
      if (g.mode === "live") delete e.shadow;
      last.side = latest;
      continue;
    }
    const change = explainChange(
      last?.side,
      { version: g.modelVersion, resource: r, evidence: evidenceOf(g.firstEvidence, resource) },
      models,
    );
    const entry = entryOf(g, r, change.causes, change.why);
    entries.push(entry);
    last = { entry, side: latest };
  }
  return { unit, entries };
}

function entryOf(
  g: AdviceGroup,
  r: RecordedResource,
  causes: AdviceEntry["causes"],
  why: string,
): AdviceEntry {
  // Built in the order of the contract, so the JSON reads from the advice to the reason for it.
  return {
    modelVersions: [g.modelVersion],
    firstAsked: g.firstAsked,
    lastAsked: g.lastAsked,
    asked: g.asked,
    status: r.status,
    ...(r.value !== undefined ? { value: r.value } : {}),
    ...(r.low !== undefined ? { low: r.low } : {}),
    ...(r.high !== undefined ? { high: r.high } : {}),
    ...(r.confidence !== undefined ? { confidence: r.confidence } : {}),
    ...(r.reasonCode !== undefined ? { reasonCode: r.reasonCode } : {}),
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.adjustments && r.adjustments.length > 0 ? { adjustments: r.adjustments } : {}),
    ...(g.mode === "shadow" ? { shadow: true } : {}),
    causes,
    why,
  };
}

/** The same advice as a person reads it; the adjustments behind an unchanged value do not count. */
function sameAdvice(a: RecordedResource, b: RecordedResource): boolean {
  return (
    a.status === b.status &&
    a.value === b.value &&
    a.low === b.low &&
    a.high === b.high &&
    a.confidence === b.confidence &&
    a.reasonCode === b.reasonCode
  );
}

function evidenceOf(list: readonly RecordedEvidence[], resource: ResourceName): RecordedEvidence | undefined {
  return list.find((e) => e.resource === resource);
}
