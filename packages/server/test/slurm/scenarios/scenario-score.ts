import type { Diagnosis, UsageSample } from "@jobsight/schemas";
import { generatedSources, type ScenarioClass } from "./scenario-classes.js";

/** How one class's diagnosis compares with what it must say. */
export type ClassScore = {
  name: string;
  jobId: string;
  state: string;
  /** The node's sources generated for the class ("none": all real). */
  generated: string;
  /** Expected finding kinds and citations, and how many of them the diagnosis has. */
  expected: number;
  present: number;
  missing: string[];
  /** Findings the evidence does not support: kinds not expected, and evidence that points at no stored data. */
  unsupported: string[];
  /** Unseen sources expected and not listed, and listed and not expected. */
  unseenMissing: string[];
  unseenExtra: string[];
  /**
   * Unseen sources not expected but true of this run: the collector's samples left a stretch of the
   * job unobserved (a loaded machine), so saying so is exactly right. Shown, not held against it.
   */
  unseenByGap: string[];
  /** Milliseconds from the job's end to the first GET that served its final diagnosis. */
  latencyMs: number | undefined;
  exact: boolean;
};

/**
 * Scores a diagnosis against its class: every expected finding present (and every expected line of
 * the job's output cited), no other finding (and none citing evidence that is not in storage:
 * `evidenceProblems`), `unseen` exactly the expected sources.
 *
 * @example
 * const score = scoreDiagnosis(cls, "42", diagnosis, [], 2100);
 * score.exact; // true
 */
export function scoreDiagnosis(
  cls: ScenarioClass,
  jobId: string,
  d: Diagnosis,
  evidenceProblems: readonly string[],
  latencyMs: number | undefined,
  observed: SampledRun = { sampleTimes: [], gapSeconds: 0, intervalSeconds: 1 },
): ClassScore {
  const kinds = d.findings.map((f) => f.kind as string);
  const want = new Set<string>(cls.expect.present);
  const cites = cls.expect.cites ?? [];
  const quoted = (text: string) => d.findings.some((f) => f.evidence.some((e) => e.line?.includes(text)));
  const missingAll = [
    ...[...want].filter((k) => !kinds.includes(k)),
    ...cites.filter((text) => !quoted(text)).map((text) => `citing "${text}"`),
  ];
  const unsupported = [
    ...kinds
      .filter((k) => !want.has(k))
      .map((k) => (cls.expect.absent.includes(k as never) ? `${k} (must not)` : k)),
    ...evidenceProblems.map((p) => `evidence: ${p}`),
  ];
  const sources = [...new Set(d.unseen.map((u) => u.source))];
  const unseenMissing = cls.expect.unseen.filter((s) => !sources.includes(s));
  const extra = sources.filter((s) => !cls.expect.unseen.includes(s));
  // A gap the stored samples show (more than one sample missed) is truly unobserved, and CPU or GPU
  // use over a run it cut short may truly not be judged.
  const gapped = observed.gapSeconds > GAP_INTERVALS * observed.intervalSeconds;
  const gapWindows = d.unseen.filter((u) => u.source === "usage-samples" && u.window !== undefined);
  const gapsTrue = gapWindows.length > 0 && gapWindows.every((u) => isGap(u.window!, observed));
  // The stored samples show a gap either way: the diagnosis's own windows, or the longest stretch.
  const withGap = gapped || gapsTrue;
  const unseenByGap = extra.filter(
    (s) => withGap && (s === "usage-samples" || s === "gpu-metrics" || s === "cpu-contention"),
  );
  const unseenExtra = extra.filter((s) => !unseenByGap.includes(s));
  // A finding about use over time that a true gap left unjudged is abstained from, not missed.
  const notJudged = (source: string) =>
    d.unseen.some((u) => u.source === source && u.reason.includes("not judged"));
  const abstained = (kind: string) =>
    withGap && notJudged(/gpu|loader/.test(kind) ? "gpu-metrics" : "usage-samples");
  const missing = missingAll.filter((k) => !abstained(k));
  return {
    name: cls.name,
    jobId,
    state: d.state ?? "?",
    generated: generatedSources(cls),
    expected: want.size + cites.length,
    present: want.size + cites.length - missingAll.length,
    missing: missingAll.map((k) => (missing.includes(k) ? k : `${k} (not judged: sampling gap)`)),
    unsupported,
    unseenMissing,
    unseenExtra,
    unseenByGap,
    latencyMs,
    exact:
      missing.length === 0 && unsupported.length === 0 && unseenMissing.length + unseenExtra.length === 0,
  };
}

/** A stretch without samples longer than this many intervals missed at least one sample. */
const GAP_INTERVALS = 2;

/**
 * How the collector observed a job: the times (ms) of its stored samples, its longest unsampled
 * stretch and the sampling interval.
 */
export type SampledRun = { sampleTimes: readonly number[]; gapSeconds: number; intervalSeconds: number };

/** Whether a window the diagnosis calls unobserved holds no stored sample and missed one at least. */
function isGap(window: { start: string; end: string }, observed: SampledRun): boolean {
  const start = Date.parse(window.start);
  const end = Date.parse(window.end);
  const long = end - start > GAP_INTERVALS * observed.intervalSeconds * 1000;
  return long && !observed.sampleTimes.some((t) => t > start && t < end);
}

/**
 * The longest stretch of a job's run without a usage sample: from its start to the first sample,
 * between samples, and from the last sample to its end.
 *
 * @example
 * longestSampleGap("…T10:00:00Z", "…T10:01:00Z", samples); // 32 when the first came 32 s late
 */
export function longestSampleGap(
  startedAt: string | undefined,
  endedAt: string | undefined,
  samples: readonly UsageSample[],
): number {
  const times = samples.map((x) => Date.parse(x.time)).sort((a, b) => a - b);
  const start = startedAt ? Date.parse(startedAt) : times[0];
  const end = endedAt ? Date.parse(endedAt) : times[times.length - 1];
  if (times.length === 0) return start !== undefined && end !== undefined ? (end - start) / 1000 : 0;
  let gap = Math.max(times[0] - start, end - times[times.length - 1]);
  for (let k = 1; k < times.length; k++) gap = Math.max(gap, times[k] - times[k - 1]);
  return Math.max(0, gap / 1000);
}

const seconds = (ms: number | undefined) => (ms === undefined ? "never" : `${(ms / 1000).toFixed(1)} s`);

/** The score table printed in the test output, one line per class, then the totals. */
export function scoreTable(scores: readonly ClassScore[], title: string): string {
  const rows = [
    [
      "class",
      "job",
      "state",
      "generated",
      "expected present",
      "unsupported",
      "unseen mismatch",
      "end→diagnosis",
      "",
    ],
    ...scores.map((s) => [
      s.name,
      s.jobId,
      s.state,
      s.generated,
      `${s.present}/${s.expected}${s.missing.length ? ` (missing ${s.missing.join(", ")})` : ""}`,
      s.unsupported.length ? `${s.unsupported.length}: ${s.unsupported.join("; ")}` : "0",
      s.unseenMissing.length + s.unseenExtra.length + s.unseenByGap.length === 0
        ? "0"
        : [
            ...s.unseenMissing.map((u) => `-${u}`),
            ...s.unseenExtra.map((u) => `+${u}`),
            ...s.unseenByGap.map((u) => `(${u}: sampling gap)`),
          ].join(" "),
      seconds(s.latencyMs),
      s.exact ? "exact" : "WRONG",
    ]),
  ];
  const widths = rows[0].map((_c, i) => Math.max(...rows.map((r) => r[i].length)));
  const lines = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const exact = scores.filter((s) => s.exact).length;
  const latencies = scores.map((s) => s.latencyMs);
  const known = latencies.filter((v): v is number => v !== undefined);
  const max = known.length === latencies.length ? Math.max(...known) : undefined;
  return [
    title,
    ...lines,
    `diagnosis scenarios: ${exact}/${scores.length} classes exact`,
    `time from a job's end to its final diagnosis: max ${seconds(max)}, median ${seconds(median(known))} (bound 10 s)`,
  ].join("\n");
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Why a class is not exact: its findings, its unseen entries and the samples it had, one line each. */
export function explainScore(s: ClassScore, d: Diagnosis, samples: readonly UsageSample[]): string {
  return [
    `${s.name} (job ${s.jobId}, ${d.state ?? "no state"}):`,
    ...d.findings.map((f) => `  finding ${f.kind}: ${f.claim}`),
    ...d.unseen.map((u) => `  unseen ${u.source}: ${u.reason}`),
    ...samples.map(
      (x) =>
        `  sample ${x.time}${x.final ? " final" : ""}: memory ${x.memory?.currentBytes ?? "-"} B, cpu ${x.cpu?.usageSeconds ?? "-"} s, ` +
        `runnable ${x.cpu?.runnableThreads ?? "-"}, gpus ${x.gpus?.map((g) => `${g.index}:${g.utilizationPercent}%`).join(" ") || "-"}`,
    ),
  ].join("\n");
}
