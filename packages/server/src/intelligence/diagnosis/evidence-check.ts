import type { Diagnosis, EvidenceRef, UsageSample } from "@jobsight/schemas";
import { jobLogLines } from "./crash/stderr-lines.js";
import { eventCitation } from "./evidence.js";
import { ms } from "./explain/format.js";
import type { DiagnosisInput } from "./input.js";
import { readMetric } from "./metric-paths.js";
import { readFrom, sampleOrigin } from "./metric-sources.js";
import { readRecordField, schedulerFieldName } from "./record-fields.js";

/** A piece of evidence that does not point at data in the input. */
export interface EvidenceProblem {
  readonly finding: number;
  readonly evidence: number;
  readonly message: string;
}

/**
 * Checks that every piece of evidence in a diagnosis points at data that exists in its input:
 * metrics at that node within that window with those exact values, events with that exact line,
 * log lines verbatim, record fields by name (with their value), run times from the history.
 * Returns the problems; an empty list means every claim cites real data.
 *
 * @example
 * ```ts
 * expect(checkEvidence(diagnose(input), input)).toEqual([]);
 * ```
 */
export function checkEvidence(diagnosis: Diagnosis, input: DiagnosisInput): EvidenceProblem[] {
  const problems: EvidenceProblem[] = [];
  diagnosis.findings.forEach((f, fi) => {
    if (f.evidence.length === 0)
      problems.push({ finding: fi, evidence: -1, message: `${f.kind} cites no evidence` });
    f.evidence.forEach((e, ei) => {
      const message = checkOne(e, input);
      if (message) problems.push({ finding: fi, evidence: ei, message: `${f.kind}: ${message}` });
    });
  });
  return problems;
}

function checkOne(e: EvidenceRef, input: DiagnosisInput): string | undefined {
  if (e.window && ms(e.window.start) > ms(e.window.end)) return "window ends before it starts";
  switch (e.kind) {
    case "metric":
    case "process":
      return checkMetric(e, input);
    case "event":
      return checkEvent(e, input);
    case "log": {
      const hit = jobLogLines(input).some((l) => l.source === e.source && l.line === e.line);
      return hit ? undefined : `log line not in the input: ${e.line}`;
    }
    case "scheduler":
      return checkScheduler(e, input);
    case "history": {
      const runs = input.history?.runTimesSeconds ?? [];
      const missing = (e.values ?? []).filter((v) => !runs.includes(v));
      if (!input.history) return "history cited but none given";
      return missing.length ? `run times not in the history: ${missing.join(", ")}` : undefined;
    }
  }
}

function samplesIn(e: EvidenceRef, input: DiagnosisInput): UsageSample[] {
  const from = ms(e.window!.start);
  const to = ms(e.window!.end);
  return input.samples.filter((s) => s.node === e.node && ms(s.time) >= from && ms(s.time) <= to);
}

function checkMetric(e: EvidenceRef, input: DiagnosisInput): string | undefined {
  if (!e.metric || !e.node || !e.window) return "metric evidence needs a metric, a node and a window";
  const carrying = samplesIn(e, input).filter((s) => readMetric(s, e.metric!) !== undefined);
  if (carrying.length === 0)
    return `no sample of ${e.metric} on ${e.node} in ${e.window.start}..${e.window.end}`;
  // Only the samples that read the metric where the evidence says it was read back it.
  const samples = carrying.filter((s) => {
    const from = readFrom(e.metric!, sampleOrigin(s));
    return from.source === e.source && (e.field === undefined || from.field === e.field);
  });
  if (samples.length === 0) {
    const from = readFrom(e.metric, sampleOrigin(carrying[0]));
    return `${e.metric} on ${e.node} was read from ${from.source}${from.field ? ` (${from.field})` : ""}, not ${e.source}${e.field ? ` (${e.field})` : ""}`;
  }
  const seen = new Set(samples.map((s) => readMetric(s, e.metric!)));
  const missing = (e.values ?? []).filter((v) => !seen.has(v));
  if (missing.length) return `values of ${e.metric} on ${e.node} not in the samples: ${missing.join(", ")}`;
  if (e.kind === "process") {
    const pid = Number(e.metric.split(".")[1]);
    const procs = samples.flatMap((s) => s.processes ?? []).filter((p) => p.pid === pid);
    if (!procs.some((p) => e.text.includes(p.command))) return `process ${pid} is not named ${e.text}`;
    const state = /state ([A-Z])\b/.exec(e.text)?.[1];
    if (state && !procs.some((p) => p.state === state)) return `process ${pid} was never in state ${state}`;
  }
  return undefined;
}

function checkEvent(e: EvidenceRef, input: DiagnosisInput): string | undefined {
  if (!e.window || !e.node || e.line === undefined)
    return "event evidence needs a node, a window and the line";
  const at = ms(e.window.start);
  const hit = input.events.find((ev) => ev.node === e.node && ms(ev.time) === at && ev.message === e.line);
  if (!hit) return `no event on ${e.node} at ${e.window.start} with line: ${e.line}`;
  const cited = eventCitation(hit);
  if (e.source !== cited.source)
    return `the event on ${e.node} at ${e.window.start} was read from ${cited.source}, not ${e.source}`;
  const value = cited.value;
  if (e.values && (e.values.length !== 1 || e.values[0] !== value))
    return `event values ${e.values.join(", ")} do not match`;
  return undefined;
}

function checkScheduler(e: EvidenceRef, input: DiagnosisInput): string | undefined {
  if (!e.metric) return "scheduler evidence needs the field name";
  const v = readRecordField(input.record, e.metric);
  if (v === undefined) return `the record has no field ${e.metric}`;
  if (e.field !== undefined && e.field !== schedulerFieldName(e.source, e.metric))
    return `${e.metric} is not ${e.source}'s ${e.field}`;
  if (e.textValue !== undefined && e.textValue !== String(v))
    return `${e.metric} is ${String(v)}, not ${e.textValue}`;
  if (typeof v === "number") {
    if (e.values && (e.values.length !== 1 || e.values[0] !== v))
      return `${e.metric} is ${v}, not ${e.values.join(", ")}`;
  } else if (!e.text.includes(String(v))) {
    return `${e.metric} is ${String(v)}, which the text does not state`;
  }
  return undefined;
}
