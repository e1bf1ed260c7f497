import type { JobRecord, JobState, NodeEvent, UsageSample } from "@jobsight/schemas";
import { ms } from "./explain/format.js";
import type { DiagnosisInput } from "./input.js";
import type { DiagnosisThresholds } from "./thresholds.js";

/** A window of time as RFC 3339 timestamps. */
export interface Window {
  readonly start: string;
  readonly end: string;
}

/**
 * The input as the rules read it: samples split per node and sorted, events narrowed to the job,
 * sources resolved, the job's reservation per node. Built once per diagnosis.
 */
export interface RuleContext {
  readonly input: DiagnosisInput;
  readonly record: JobRecord;
  readonly thresholds: DiagnosisThresholds;
  readonly state: JobState | undefined;
  /** The job ended without completing cleanly (any state but COMPLETED, or a non-zero exit or a signal). */
  readonly failed: boolean;
  /** When the job ran: start and end from the record, else from the samples. */
  readonly window: Window | undefined;
  /** Run time in seconds: `peaks.runTimeSeconds`, else end - start. */
  readonly runSeconds: number | undefined;
  /** Every node the job ran on (record and samples). */
  readonly nodes: readonly string[];
  /** Whole-job samples per node, sorted by time, one per instant. */
  readonly series: ReadonlyMap<string, readonly UsageSample[]>;
  /** Step samples per node and step id. */
  readonly stepSeries: ReadonlyMap<string, ReadonlyMap<string, readonly UsageSample[]>>;
  /** Events on the job's nodes during the job (with slack), not attributed to another job. */
  readonly events: readonly NodeEvent[];
  /** GPUs the job reserved (allocated, else requested); 0 for CPU jobs. */
  readonly gpusReserved: number;
  /** Nodes whose samples carry GPU metrics. */
  readonly gpuMetricNodes: ReadonlySet<string>;
  /** Nodes whose kernel log was not read: the collector could not, or no collector reported from them. */
  readonly kernelLogUnreadable: ReadonlySet<string>;
  /** Whether the job's final (epilog) reading was taken. */
  readonly finalReadingSeen: boolean;
  /** Cores reserved per node. */
  readonly coresPerNode: number | undefined;
  /** Memory reserved per node (bytes), from the request when the cgroup limit is unknown. */
  readonly requestedMemoryPerNode: number | undefined;
  /** What the scheduler fields were read from, as an evidence source (`sacct`, `pod.status`, …). */
  readonly schedulerSource: string;
}

/** Builds the {@link RuleContext} of an input. */
export function buildContext(input: DiagnosisInput, thresholds: DiagnosisThresholds): RuleContext {
  const record = input.record;
  const state = record.outcome?.state;
  const { series, stepSeries } = splitSamples(input.samples);
  const nodes = [...new Set([...(record.nodes ?? []), ...series.keys(), ...stepSeries.keys()])];
  const window = jobWindow(record, input.samples);
  const nodeCount = Math.max(1, record.nodes?.length ?? record.allocated?.nodes ?? nodes.length);
  const res = { ...record.spec.requested, ...stripUndefined(record.allocated ?? {}) };
  const runSeconds =
    record.peaks?.runTimeSeconds ??
    (record.startedAt && record.endedAt ? (ms(record.endedAt) - ms(record.startedAt)) / 1000 : undefined);
  return {
    input,
    record,
    thresholds,
    state,
    failed: isFailed(record),
    window,
    runSeconds,
    nodes,
    series,
    stepSeries,
    events: jobEvents(input.events, record.jobId, nodes, window, thresholds.eventSlackSeconds),
    gpusReserved: res.gpus ?? 0,
    gpuMetricNodes: gpuNodes(input, series),
    kernelLogUnreadable: unreadableKernelLog(input, nodes, series),
    finalReadingSeen: input.sourcesSeen.finalReading ?? input.samples.some((s) => s.final === true),
    coresPerNode: res.cores !== undefined ? res.cores / nodeCount : undefined,
    requestedMemoryPerNode: res.memoryBytes !== undefined ? res.memoryBytes / nodeCount : undefined,
    schedulerSource: schedulerSource(record),
  };
}

/** True when the job did not complete cleanly. */
export function isFailed(record: JobRecord): boolean {
  const o = record.outcome;
  if (!o) return false;
  return o.state !== "COMPLETED" || (o.exitCode ?? 0) !== 0 || o.signal !== undefined;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function splitSamples(samples: readonly UsageSample[]) {
  const job = new Map<string, Map<number, UsageSample>>();
  const steps = new Map<string, Map<string, Map<number, UsageSample>>>();
  for (const s of samples) {
    const t = ms(s.time);
    if (Number.isNaN(t)) continue;
    if (s.step === undefined) {
      if (!job.has(s.node)) job.set(s.node, new Map());
      job.get(s.node)!.set(t, s);
    } else {
      if (!steps.has(s.node)) steps.set(s.node, new Map());
      const byStep = steps.get(s.node)!;
      if (!byStep.has(s.step)) byStep.set(s.step, new Map());
      byStep.get(s.step)!.set(t, s);
    }
  }
  const sorted = (m: Map<number, UsageSample>) =>
    [...m.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  const series = new Map<string, UsageSample[]>();
  for (const [node, m] of job) series.set(node, sorted(m));
  const stepSeries = new Map<string, Map<string, UsageSample[]>>();
  for (const [node, byStep] of steps) {
    const out = new Map<string, UsageSample[]>();
    for (const [step, m] of byStep) out.set(step, sorted(m));
    stepSeries.set(node, out);
    // Without whole-job samples on a node, the longest step series stands for the job there.
    if (!series.has(node)) {
      const longest = [...out.values()].sort((a, b) => b.length - a.length)[0];
      if (longest) series.set(node, longest);
    }
  }
  return { series, stepSeries };
}

function jobWindow(record: JobRecord, samples: readonly UsageSample[]): Window | undefined {
  let first: string | undefined;
  let last: string | undefined;
  for (const s of samples) {
    if (first === undefined || ms(s.time) < ms(first)) first = s.time;
    if (last === undefined || ms(s.time) > ms(last)) last = s.time;
  }
  const start = record.startedAt ?? first;
  const end = record.endedAt ?? last;
  return start && end ? { start, end } : undefined;
}

function jobEvents(
  events: readonly NodeEvent[],
  jobId: string,
  nodes: readonly string[],
  window: Window | undefined,
  slackSeconds: number,
): NodeEvent[] {
  const onNodes = new Set(nodes);
  return events
    .filter((e) => (e.jobId === undefined || e.jobId === jobId) && (e.jobId === jobId || onNodes.has(e.node)))
    .filter((e) => {
      if (!window) return true;
      const t = ms(e.time);
      return t >= ms(window.start) - slackSeconds * 1000 && t <= ms(window.end) + slackSeconds * 1000;
    })
    .sort((a, b) => ms(a.time) - ms(b.time));
}

function gpuNodes(input: DiagnosisInput, series: ReadonlyMap<string, readonly UsageSample[]>): Set<string> {
  const out = new Set<string>();
  if (input.sourcesSeen.gpuMetrics === false) return out;
  for (const [node, samples] of series) if (samples.some((s) => (s.gpus?.length ?? 0) > 0)) out.add(node);
  return out;
}

function unreadableKernelLog(
  input: DiagnosisInput,
  nodes: readonly string[],
  series: ReadonlyMap<string, readonly UsageSample[]>,
): Set<string> {
  if (input.sourcesSeen.kernelLog === true) return new Set();
  if (input.sourcesSeen.kernelLog === false) return new Set(nodes);
  const out = new Set<string>();
  for (const node of nodes) {
    const events = input.events.filter((e) => e.node === node);
    // Said per job: another job's notice in this job's window speaks for the node too.
    const refused = events.some((e) => e.kind === "source_unavailable" && e.source === "kmsg");
    // A node no collector reported from (no sample, no event) had its kernel log read by nobody.
    const silent = !series.has(node) && events.length === 0;
    if (refused || silent) out.add(node);
  }
  return out;
}

function schedulerSource(record: JobRecord): string {
  switch (record.source) {
    case "slurm-controller":
      return record.phase === "ended" ? "sacct" : "squeue";
    case "sacct-import":
      return "sacct";
    case "kubernetes":
      return "pod.status";
    case "swf-import":
      return "swf";
    default:
      return "collector";
  }
}
