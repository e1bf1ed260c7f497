import type { EvidenceRef, Finding, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { coverage, enough } from "../coverage.js";
import { metricEvidence, present, processEvidence } from "../evidence.js";
import { formatShare, trim } from "../explain/format.js";
import { gpuDevices } from "../gpu-device.js";
import { gpuMetric } from "../metric-paths.js";
import { cpuRates, meanGpuUtilisation, runsOf } from "../series.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/** Windows quoted per finding, longest first. */
const MAX_WINDOWS = 5;

interface SampleState {
  readonly sample: UsageSample;
  readonly stalled: boolean;
  readonly io: boolean;
  readonly dState: boolean;
  readonly cpu: boolean;
}

/**
 * Stalled data loader: the GPUs mostly idle while the job's processes wait on I/O (state D, high
 * `io.pressure`) or its CPUs are saturated feeding them, in windows of several consecutive samples
 * that together cover a good part of the run. Needs GPU metrics and at least one of pressure,
 * process states or CPU counters from the same node.
 */
export const stalledDataLoaderRule: DiagnosisRule = {
  name: "stalled-data-loader",
  evaluate(ctx) {
    const findings: Finding[] = [];
    for (const node of ctx.gpuMetricNodes) {
      const f = nodeFinding(ctx, node, ctx.series.get(node) ?? []);
      if (f) findings.push(f);
    }
    return findings.length ? { findings } : NOTHING;
  },
};

function nodeFinding(ctx: RuleContext, node: string, all: readonly UsageSample[]): Finding | undefined {
  const t = ctx.thresholds;
  const samples = all.filter((s) => (s.gpus?.length ?? 0) > 0);
  if (samples.length < t.stallMinSamples) return undefined;
  // Shares of "the samples" speak for the run only when the GPU readings cover enough of it.
  if (!enough(ctx, coverage(ctx, samples, "readings", all))) return undefined;
  const rateAt = new Map(cpuRates(all).map((r) => [r.to.time, r.cores]));
  const states: SampleState[] = samples.map((s) => {
    const util = meanGpuUtilisation(s)!;
    const io = (s.pressure?.ioSome ?? 0) > t.ioPressureSomePercent;
    const dState = s.processes?.some((p) => p.state === "D") ?? false;
    const rate = rateAt.get(s.time);
    const cpu =
      rate !== undefined && ctx.coresPerNode !== undefined && rate >= t.cpuSaturatedShare * ctx.coresPerNode;
    return {
      sample: s,
      io,
      dState,
      cpu,
      stalled: util < t.gpuLowUtilisationPercent && (io || dState || cpu),
    };
  });
  const windows = runsOf(states.map((x) => x.stalled)).filter(([a, b]) => b - a + 1 >= t.stallMinSamples);
  const covered = windows.reduce((n, [a, b]) => n + b - a + 1, 0);
  if (covered / samples.length < t.stallMinShare) return undefined;
  const inWindows = windows.flatMap(([a, b]) => states.slice(a, b + 1));
  const ioShare = inWindows.filter((x) => x.io || x.dState).length / inWindows.length;
  // Name the cause that held in most stalled samples: waiting on storage, or a CPU-bound loader.
  const cause = ioShare >= 0.5 ? "io" : "cpu";
  const gpus = gpuDevices(samples).slice(0, 2);
  const longest = [...windows].sort((x, y) => y[1] - y[0] - (x[1] - x[0])).slice(0, MAX_WINDOWS);
  const evidence: EvidenceRef[] = [];
  const quoted: string[] = [];
  for (const [a, b] of longest.sort((x, y) => x[0] - y[0])) {
    const seg = states.slice(a, b + 1).map((x) => x.sample);
    const from = seg[0].time;
    const to = seg[seg.length - 1].time;
    quoted.push(`${from} to ${to}`);
    for (const g of gpus) {
      evidence.push(
        ...present(
          metricEvidence(
            node,
            gpuMetric(g, "utilizationPercent"),
            seg,
            `${g.label} utilisation on ${node} from ${from} to ${to}.`,
          ),
        ),
      );
    }
    if (cause === "io") {
      evidence.push(
        ...present(
          metricEvidence(
            node,
            "pressure.ioSome",
            seg,
            `io.pressure some (avg10) on ${node} from ${from} to ${to}.`,
          ),
        ),
      );
      const d = seg.find((s) => s.processes?.some((p) => p.state === "D"));
      const p = d?.processes?.find((x) => x.state === "D");
      if (d && p)
        evidence.push(
          processEvidence(
            node,
            d,
            p.pid,
            `${p.command} (pid ${p.pid}) in state D (waiting on I/O) at ${d.time}.`,
          ),
        );
    } else {
      const ends = [seg[0], seg[seg.length - 1]];
      evidence.push(
        ...present(
          metricEvidence(
            node,
            "cpu.usageSeconds",
            ends,
            `CPU time used on ${node} from ${from} to ${to}: every reserved core busy.`,
          ),
        ),
      );
    }
  }
  const meanUtil = inWindows.reduce((s, x) => s + meanGpuUtilisation(x.sample)!, 0) / inWindows.length;
  const ioVals = inWindows.map((x) => x.sample.pressure?.ioSome).filter((v): v is number => v !== undefined);
  const dCount = new Set(
    inWindows.flatMap((x) => (x.sample.processes ?? []).filter((p) => p.state === "D").map((p) => p.pid)),
  ).size;
  const why =
    cause === "io"
      ? `${ioVals.length ? `I/O pressure (some) averaged ${trim(ioVals.reduce((s, v) => s + v, 0) / ioVals.length)}%` : "I/O pressure was not read"}${dCount ? ` and ${dCount} process${dCount > 1 ? "es were" : " was"} in state D (waiting on I/O)` : ""}: reading the input could not keep up with the GPUs`
      : "every reserved CPU core was busy: decoding or augmenting the input on the CPU could not keep up with the GPUs";
  return {
    kind: "stalled_data_loader",
    severity: "warning",
    claim:
      `The GPUs on ${node} were starved of input in ${windows.length} window${windows.length > 1 ? "s" : ""} covering ${formatShare(covered / samples.length)} of the samples ` +
      `(${quoted.join("; ")}${windows.length > quoted.length ? "; …" : ""}): GPU utilisation averaged ${trim(meanUtil)}% while ${why}.`,
    confidence: 0.8,
    evidence,
  };
}
