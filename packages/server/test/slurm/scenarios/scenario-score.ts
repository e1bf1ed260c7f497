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
   * Unseen sources not expected but true of this run, and why: SLURM began the batch script long
   * after its recorded Start (nothing of the job existed to observe), or the stored samples really
   * have a gap while the job ran (a round slower than the interval). Shown, not held against it.
   */
  unseenExplained: { source: string; cause: Cause }[];
  /** Milliseconds from the job's end to the first GET that served its final diagnosis. */
  latencyMs: number | undefined;
  /** Seconds from SLURM's recorded Start to the batch script's start (SLURM's log). */
  launchWaitSeconds: number | undefined;
  /** Seconds from the batch script's start (else SLURM's Start) to the collector's first stored sample. */
  firstSampleSeconds: number | undefined;
  /** The collector's longest stretch without a sample while the job's processes could exist. */
  collectorGapSeconds: number;
  /** The first sample came within {@link PROMPT_INTERVALS} intervals of the script's start (or the job ended first). */
  prompt: boolean;
  exact: boolean;
};

/**
 * The readers whose blind spots every job of the class is told of (`source_limits`): the proc
 * phase sums /proc without cgroups and reads GPUs with nvidia-smi; the cgroup phase reads a
 * cgroup v2 tree, which declares none.
 */
export function readerLimits(cls: ScenarioClass): string[] {
  if (cls.phase !== "proc") return [];
  return cls.gpu ? ["proc", "nvidia-smi"] : ["proc"];
}

/**
 * Scores a diagnosis against its class: every expected finding present (and every expected line of
 * the job's output cited), no other finding (and none citing evidence that is not in storage:
 * `evidenceProblems`), `unseen` exactly the expected sources. An unobserved window (and a use not
 * judged for it) is true, and named, when SLURM's log shows the batch script began after it
 * ({@link SampledRun.launchedAt}) or the stored samples show the collector's gap; never when the
 * collector's first sample came late after the script began.
 *
 * @example
 * const score = scoreDiagnosis(cls, "42", diagnosis, [], 2100, run);
 * score.exact; // true
 */
export function scoreDiagnosis(
  cls: ScenarioClass,
  jobId: string,
  d: Diagnosis,
  evidenceProblems: readonly string[],
  latencyMs: number | undefined,
  observed: SampledRun = { sampleTimes: [], intervalSeconds: 1 },
): ClassScore {
  const kinds = d.findings.map((f) => f.kind as string);
  const want = new Set<string>(cls.expect.present);
  const may = new Set<string>(cls.expect.mayAlso ?? []);
  const cites = cls.expect.cites ?? [];
  const quoted = (text: string) => d.findings.some((f) => f.evidence.some((e) => e.line?.includes(text)));
  const missingAll = [
    ...[...want].filter((k) => !kinds.includes(k)),
    ...cites.filter((text) => !quoted(text)).map((text) => `citing "${text}"`),
  ];
  const unsupported = [
    ...kinds
      .filter((k) => !want.has(k) && !may.has(k))
      .map((k) => (cls.expect.absent.includes(k as never) ? `${k} (must not)` : k)),
    ...evidenceProblems.map((p) => `evidence: ${p}`),
  ];
  const sources = [...new Set(d.unseen.map((u) => u.source))];
  const expected = [...cls.expect.unseen, ...readerLimits(cls)];
  const unseenMissing = expected.filter((s) => !sources.includes(s));
  const extra = sources.filter((s) => !expected.includes(s));
  const t = samplingFacts(observed);
  const bar = GAP_INTERVALS * observed.intervalSeconds;
  // Coverage cut short is explained only with a prompt first sample, and by the longer stretch.
  const wait = t.launchWaitSeconds ?? 0;
  const shortened = t.prompt && Math.max(wait, t.collectorGapSeconds) > bar;
  const why: Cause = wait >= t.collectorGapSeconds ? LAUNCH : GAP;
  const cause = (u: Diagnosis["unseen"][number]): Cause | undefined => {
    if (u.reason.includes("not judged")) return shortened ? why : undefined;
    return u.window === undefined ? undefined : windowCause(u.window, observed);
  };
  const unseenExplained = extra.flatMap((source) => {
    if (!LAUNCH_SOURCES.has(source)) return [];
    const causes = d.unseen.filter((u) => u.source === source).map(cause);
    if (causes.some((c) => c === undefined)) return [];
    return [{ source, cause: causes.includes(GAP) ? GAP : LAUNCH } as const];
  });
  const unseenExtra = extra.filter((s) => !unseenExplained.some((u) => u.source === s));
  // A finding about use over time that a true stretch without samples left unjudged is abstained from, not missed.
  const notJudged = (source: string) =>
    d.unseen.some((u) => u.source === source && u.reason.includes("not judged"));
  const abstained = (kind: string) =>
    shortened && notJudged(/gpu|loader/.test(kind) ? "gpu-metrics" : "usage-samples");
  const missing = missingAll.filter((k) => !abstained(k));
  return {
    name: cls.name,
    jobId,
    state: d.state ?? "?",
    generated: generatedSources(cls),
    expected: want.size + cites.length,
    present: want.size + cites.length - missingAll.length,
    missing: missingAll.map((k) => (missing.includes(k) ? k : `${k} (not judged: ${why})`)),
    unsupported,
    unseenMissing,
    unseenExtra,
    unseenExplained,
    latencyMs,
    ...t,
    exact:
      missing.length === 0 && unsupported.length === 0 && unseenMissing.length + unseenExtra.length === 0,
  };
}

/** A stretch without samples longer than this many intervals missed at least one sample. */
const GAP_INTERVALS = 2;
/**
 * The collector must sample a job within this many intervals of its batch script's start: the test
 * samples every 2 s, five times a site's pace, and a round takes up to 3 s on a loaded 2-core machine.
 */
export const PROMPT_INTERVALS = 4;
const LAUNCH = "SLURM launched late" as const;
const GAP = "collector gap" as const;
/** Why a stretch of the run has no sample. */
export type Cause = typeof LAUNCH | typeof GAP;
/** Unseen sources a stretch without samples gives. */
const LAUNCH_SOURCES = new Set(["usage-samples", "gpu-metrics", "cpu-contention"]);

/** How the collector observed a job (times in ms since the epoch). */
export type SampledRun = {
  /** The job's stored samples. */
  sampleTimes: readonly number[];
  intervalSeconds: number;
  /** SLURM's recorded Start and End. */
  startedAt?: number;
  endedAt?: number;
  /**
   * When the batch script began, from SLURM's log (batch-starts.ts): SLURM's Start is the
   * allocation, and before the script the job had no process or cgroup for any collector to see.
   */
  launchedAt?: number;
};

/** What the stored samples and SLURM's times say of the collector's part. */
export function samplingFacts(
  run: SampledRun,
): Pick<ClassScore, "launchWaitSeconds" | "firstSampleSeconds" | "collectorGapSeconds" | "prompt"> {
  const { startedAt, endedAt, launchedAt } = run;
  const from = launchedAt ?? startedAt;
  const times = [...run.sampleTimes].sort((a, b) => a - b);
  const launchWaitSeconds =
    launchedAt !== undefined && startedAt !== undefined
      ? Math.max(0, launchedAt - startedAt) / 1000
      : undefined;
  const firstSampleSeconds = from !== undefined && times.length > 0 ? (times[0] - from) / 1000 : undefined;
  const collectorGapSeconds = longestGap(from, endedAt, times);
  const bound = PROMPT_INTERVALS * run.intervalSeconds;
  // A job that ended within the bound may end unsampled; none may be seen late.
  const endedFirst = from !== undefined && endedAt !== undefined && (endedAt - from) / 1000 <= bound;
  const prompt = firstSampleSeconds !== undefined ? firstSampleSeconds <= bound : endedFirst;
  return { launchWaitSeconds, firstSampleSeconds, collectorGapSeconds, prompt };
}

/**
 * Why a window the diagnosis calls unobserved has no sample: it ends by the collector's first chance
 * after the script began (SLURM's wait), or it lies after the first sample and missed one at least
 * (the collector's gap). Undefined when a stored sample falls inside it.
 */
function windowCause(window: { start: string; end: string }, run: SampledRun): Cause | undefined {
  const start = Date.parse(window.start);
  const end = Date.parse(window.end);
  if (run.sampleTimes.some((t) => t > start && t < end)) return undefined;
  const interval = run.intervalSeconds * 1000;
  if (run.launchedAt !== undefined && end <= run.launchedAt + PROMPT_INTERVALS * interval) return LAUNCH;
  const first = Math.min(...run.sampleTimes);
  return start >= first && end - start > GAP_INTERVALS * interval ? GAP : undefined;
}

/** The longest stretch without a sample from `start` to `end` (seconds). */
function longestGap(start: number | undefined, end: number | undefined, times: readonly number[]): number {
  const from = start ?? times[0];
  const to = end ?? times[times.length - 1];
  if (times.length === 0) return from !== undefined && to !== undefined ? Math.max(0, to - from) / 1000 : 0;
  let gap = Math.max(times[0] - from, to - times[times.length - 1]);
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
      "Start→script",
      "script→1st sample",
      "longest gap",
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
      s.unseenMissing.length + s.unseenExtra.length + s.unseenExplained.length === 0
        ? "0"
        : [
            ...s.unseenMissing.map((u) => `-${u}`),
            ...s.unseenExtra.map((u) => `+${u}`),
            ...s.unseenExplained.map((u) => `(${u.source}: ${u.cause})`),
          ].join(" "),
      seconds(s.launchWaitSeconds === undefined ? undefined : s.launchWaitSeconds * 1000),
      `${seconds(s.firstSampleSeconds === undefined ? undefined : s.firstSampleSeconds * 1000)}${s.prompt ? "" : " LATE"}`,
      seconds(s.collectorGapSeconds * 1000),
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
    `SLURM's Start to the batch script's start (SLURM's log): ${spread(scores.map((s) => s.launchWaitSeconds))}`,
    `batch script's start to the collector's first sample: ${spread(scores.map((s) => s.firstSampleSeconds))} (bound ${PROMPT_INTERVALS} intervals)`,
    `longest stretch without a sample after the script began: ${spread(scores.map((s) => s.collectorGapSeconds))}`,
  ].join("\n");
}

/** "max …, median …" of seconds, the unknown left out. */
function spread(values: readonly (number | undefined)[]): string {
  const known = values.filter((v): v is number => v !== undefined).map((v) => v * 1000);
  return known.length ? `max ${seconds(Math.max(...known))}, median ${seconds(median(known))}` : "unknown";
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
