import type { EvidenceRef, NodeEvent, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import type { JobLogLine, RunTimeHistory } from "./input.js";
import { type MetricName, metricUnit, processMetric, readMetric } from "./metric-paths.js";
import { PROCESS_RSS, type ReadFrom, readFrom, type SampleOrigin, sampleOrigin } from "./metric-sources.js";
import { readRecordField, schedulerFieldName } from "./record-fields.js";

/** The most values one piece of evidence carries (the schema's limit). */
export const MAX_EVIDENCE_VALUES = 64;

/** `text` cut to `max` characters, an ellipsis marking the cut. */
export const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A source and its field as evidence carries them. */
const where = (r: ReadFrom) => ({ source: r.source, ...(r.field ? { field: r.field } : {}) });

/**
 * Evidence from a metric over some samples of one node: the window they span and their values
 * (thinned to {@link MAX_EVIDENCE_VALUES}, always keeping the first, the last and the largest),
 * labelled with where those samples read it (a cgroup file, or `/proc` without cgroups).
 * Undefined when none of the samples carries the metric, so no rule can cite what it did not see.
 *
 * @example
 * ```ts
 * metricEvidence("n1", "memory.currentBytes", samples, "memory climbed from 2 GiB to 31.9 GiB");
 * ```
 */
export function metricEvidence(
  node: string,
  metric: MetricName,
  samples: readonly UsageSample[],
  text: string,
): EvidenceRef | undefined {
  const carrying = sameOrigin(samples.filter((s) => readMetric(s, metric) !== undefined));
  if (carrying.length === 0) return undefined;
  const kept = thin(carrying, (s) => readMetric(s, metric)!);
  const unit = metricUnit(metric);
  return {
    kind: "metric",
    ...where(readFrom(metric, sampleOrigin(carrying[0]))),
    metric,
    node,
    window: { start: carrying[0].time, end: carrying[carrying.length - 1].time },
    values: kept.map((s) => readMetric(s, metric)!),
    ...(unit ? { unit } : {}),
    text: clip(text, 2048),
  };
}

/** The samples of the origin most of them share, so one label is true of every value cited. */
function sameOrigin(samples: readonly UsageSample[]): UsageSample[] {
  const by = new Map<SampleOrigin, UsageSample[]>();
  for (const s of samples) {
    const o = sampleOrigin(s);
    by.set(o, [...(by.get(o) ?? []), s]);
  }
  return [...by.values()].sort((a, b) => b.length - a.length)[0] ?? [];
}

function thin(samples: readonly UsageSample[], value: (s: UsageSample) => number): UsageSample[] {
  if (samples.length <= MAX_EVIDENCE_VALUES) return [...samples];
  let maxAt = 0;
  for (let i = 1; i < samples.length; i++) if (value(samples[i]) > value(samples[maxAt])) maxAt = i;
  const picks = new Set<number>([0, samples.length - 1, maxAt]);
  const step = (samples.length - 1) / (MAX_EVIDENCE_VALUES - 4);
  for (let k = 0; picks.size < MAX_EVIDENCE_VALUES && k * step < samples.length; k++)
    picks.add(Math.round(k * step));
  return [...picks].sort((a, b) => a - b).map((i) => samples[i]);
}

/** Evidence from one process in one sample: its resident set, named with its command and state. */
export function processEvidence(node: string, sample: UsageSample, pid: number, text: string): EvidenceRef {
  const p = sample.processes?.find((x) => x.pid === pid);
  if (!p) throw new RangeError(`no process ${pid} in the sample of ${node} at ${sample.time}`);
  return {
    kind: "process",
    ...where(PROCESS_RSS),
    metric: processMetric(pid),
    node,
    window: { start: sample.time, end: sample.time },
    values: [p.rssBytes],
    unit: "By",
    text: clip(text, 2048),
  };
}

/**
 * Where an event was read and the number it carries: the kernel log's Xid code or killed pid,
 * nvidia-smi's exit status for a lost GPU (its line is the event's message), or nothing for the
 * collector's own notes. One answer for evidence and for checking it.
 *
 * @example
 * ```ts
 * eventCitation(xid79); // { source: "kmsg", field: "Xid", value: 79 }
 * ```
 */
export function eventCitation(event: NodeEvent): { source: string; field?: string; value?: number } {
  switch (event.kind) {
    case "gpu_lost":
      return {
        source: "nvidia-smi",
        field: "Unable to determine the device handle",
        ...(event.gpuLost?.exitCode !== undefined ? { value: event.gpuLost.exitCode } : {}),
      };
    case "source_unavailable":
    case "source_limits":
      return { source: "collector" };
    default: {
      const value = event.xid?.code ?? event.oomKill?.pid;
      return {
        source: "kmsg",
        ...(event.xid ? { field: "Xid" } : event.oomKill ? { field: "Killed process" } : {}),
        ...(value !== undefined ? { value } : {}),
      };
    }
  }
}

/**
 * Evidence from a node event: its line verbatim (and the Xid code, the killed pid or nvidia-smi's
 * exit status as its value).
 */
export function eventEvidence(event: NodeEvent, text: string): EvidenceRef {
  const { value, ...from } = eventCitation(event);
  return {
    kind: "event",
    ...from,
    metric: event.kind,
    node: event.node,
    window: { start: event.time, end: event.time },
    ...(value !== undefined ? { values: [value] } : {}),
    line: clip(event.message, 4096),
    text: clip(text, 2048),
  };
}

/** Evidence from a line of the job's output, verbatim. */
export function logEvidence(line: JobLogLine, text: string): EvidenceRef {
  return {
    kind: "log",
    source: line.source,
    line: clip(line.line, 4096),
    ...(line.time ? { window: { start: line.time, end: line.time } } : {}),
    text: clip(text, 2048),
  };
}

/**
 * Evidence from a field of the job record, named by its path; numeric fields carry their value.
 * Undefined when the record lacks the field.
 */
export function schedulerEvidence(ctx: RuleContext, field: string, text: string): EvidenceRef | undefined {
  const v = readRecordField(ctx.record, field);
  if (v === undefined) return undefined;
  const name = schedulerFieldName(ctx.schedulerSource, field);
  return {
    kind: "scheduler",
    source: ctx.schedulerSource,
    ...(name ? { field: name } : {}),
    metric: field,
    ...(typeof v === "number" ? { values: [v] } : String(v) ? { textValue: clip(String(v), 1024) } : {}),
    ...(typeof v === "number" && /Bytes$/.test(field) ? { unit: "By" } : {}),
    ...(typeof v === "number" && /Seconds$/.test(field) ? { unit: "s" } : {}),
    text: clip(text, 2048),
  };
}

/** Evidence from run-time history: some of the past run times (each one of the recorded values). */
export function historyEvidence(
  history: RunTimeHistory,
  values: readonly number[],
  text: string,
): EvidenceRef {
  return {
    kind: "history",
    source: "history",
    metric: "runTimesSeconds",
    values: values.slice(0, MAX_EVIDENCE_VALUES),
    unit: "s",
    text: clip(`${text} (group ${history.group})`, 2048),
  };
}

/** Keeps the defined pieces of evidence. */
export function present(...refs: (EvidenceRef | undefined)[]): EvidenceRef[] {
  return refs.filter((r): r is EvidenceRef => r !== undefined);
}

/** Drops repeated evidence (same kind, metric, node, window, line and values), keeping the first. */
export function dedupeEvidence(refs: readonly EvidenceRef[]): EvidenceRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = JSON.stringify([r.kind, r.metric, r.node, r.window, r.line, r.values]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
