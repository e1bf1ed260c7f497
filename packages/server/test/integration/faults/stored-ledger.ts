import pg from "pg";
import type { AckedRecord, AckRecorder } from "./ack-recorder.js";
import type { JobPhase } from "./fake-slurm.js";

const RANK: Record<JobPhase, number> = { submitted: 0, started: 1, ended: 2 };

/** What the database holds for the cluster, read in one go. */
export type StoredState = {
  /** `job|node|step|epoch ms` → rows with that key (the primary key makes it at most 1). */
  samples: Map<string, number>;
  /** Jobs whose hourly summary counts a different number of samples than are stored. */
  summaryMismatches: { jobId: string; rows: number; summarised: number }[];
  jobs: Map<string, { phase: JobPhase; idempotencyKey: string | null }>;
  /** What the server had acknowledged before the read: all of it must be in the read. */
  ackedSamples: Map<number, AckedRecord[]>;
  ackedJobs: Map<number, AckedRecord[]>;
  /** The node's spool also holds events (e.g. that it does not read the kernel log), sent apart. */
  ackedEvents: Map<number, AckedRecord[]>;
  /** Natural keys of every sample forwarded to the server by the end of the read. */
  sentSamples: Set<string>;
};

/** The natural key of a usage sample, as the server deduplicates it. */
export function sampleKey(s: { jobId?: unknown; node?: unknown; step?: unknown; time?: unknown }): string {
  return `${s.jobId}|${s.node}|${s.step ?? ""}|${Date.parse(String(s.time))}`;
}

/**
 * Read the cluster's samples, hourly summaries and jobs, with what the server had acknowledged
 * just before (through the recorder).
 */
export async function readStored(recorder: AckRecorder, url: string, cluster: string): Promise<StoredState> {
  const ackedSamples = recorder.snapshot("/v1/usage");
  const ackedJobs = recorder.snapshot("/v1/jobs");
  const ackedEvents = recorder.snapshot("/v1/events");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const samples = new Map<string, number>();
    const { rows } = await client.query<{ job_id: string; node: string; step: string; time: Date }>(
      "SELECT job_id, node, step, time FROM usage_samples WHERE cluster = $1",
      [cluster],
    );
    for (const r of rows) {
      const key = sampleKey({ jobId: r.job_id, node: r.node, step: r.step, time: r.time.toISOString() });
      samples.set(key, (samples.get(key) ?? 0) + 1);
    }
    const { rows: summary } = await client.query<{ job_id: string; rows: number; summarised: number }>(
      `SELECT s.job_id, s.rows, coalesce(h.summarised, 0)::int AS summarised
       FROM (SELECT job_id, count(*)::int AS rows FROM usage_samples WHERE cluster = $1 GROUP BY job_id) s
       LEFT JOIN (SELECT job_id, sum(samples)::int AS summarised FROM job_usage_hourly WHERE cluster = $1
                  GROUP BY job_id) h USING (job_id)`,
      [cluster],
    );
    const { rows: jobRows } = await client.query<{
      job_id: string;
      phase: JobPhase;
      idempotency_key: string | null;
    }>("SELECT job_id, phase, idempotency_key FROM jobs WHERE cluster = $1", [cluster]);
    return {
      samples,
      summaryMismatches: summary
        .filter((r) => r.rows !== r.summarised)
        .map((r) => ({ jobId: r.job_id, rows: r.rows, summarised: r.summarised })),
      jobs: new Map(jobRows.map((r) => [r.job_id, { phase: r.phase, idempotencyKey: r.idempotency_key }])),
      ackedSamples,
      ackedEvents,
      ackedJobs,
      sentSamples: new Set((recorder.forwarded.get("/v1/usage") ?? []).map(sampleKey)),
    };
  } finally {
    await client.end();
  }
}

/** Where what the server acknowledged and what is stored disagree; every list empty when all is well. */
export type LedgerReport = {
  /** Spooled sequences (1..lastSeq of the collector) the server never acknowledged. */
  unacknowledged: number[];
  /** Acknowledged records missing from the database. */
  lost: string[];
  /** Rows in the database nobody sent. */
  invented: string[];
  /** Rows counted more than once (a key stored twice, or a summary counting a resend again). */
  duplicated: string[];
  /** One sequence acknowledged with different content on a resend (its key was not stable). */
  unstableKeys: number[];
  /** Different sequences with the same natural key (the clock stepped back onto an earlier reading). */
  naturalKeyCollisions: number;
  /** Distinct samples acknowledged. */
  ackedSamples: number;
};

/**
 * Compares what the server acknowledged (through the recorder) with what PostgreSQL holds: every
 * spooled sample up to `lastSeq` acknowledged, every acknowledged sample stored exactly once,
 * nothing stored that was not sent.
 */
export function checkSamples(stored: StoredState, lastSeq: number): LedgerReport {
  const acked = stored.ackedSamples;
  const report: LedgerReport = {
    unacknowledged: [],
    lost: [],
    invented: [],
    duplicated: [],
    unstableKeys: [],
    naturalKeyCollisions: 0,
    ackedSamples: 0,
  };
  for (let seq = 1; seq <= lastSeq; seq++)
    if (!acked.has(seq) && !stored.ackedEvents.has(seq)) report.unacknowledged.push(seq);
  const keys = new Map<string, number>();
  for (const [seq, acks] of acked) {
    const key = sampleKey(acks[0].value);
    if (acks.some((a) => JSON.stringify(a.value) !== JSON.stringify(acks[0].value)))
      report.unstableKeys.push(seq);
    const earlier = keys.get(key);
    if (earlier !== undefined && earlier !== seq) report.naturalKeyCollisions++;
    keys.set(key, seq);
  }
  report.ackedSamples = keys.size;
  for (const key of keys.keys()) if (!stored.samples.has(key)) report.lost.push(key);
  for (const [key, n] of stored.samples) {
    if (!stored.sentSamples.has(key)) report.invented.push(key);
    if (n !== 1) report.duplicated.push(`${key} ×${n}`);
  }
  for (const m of stored.summaryMismatches)
    report.duplicated.push(`job ${m.jobId}: ${m.rows} rows, hourly summary counts ${m.summarised}`);
  return report;
}

/** Where the stored jobs differ from the scheduler's truth and from what was acknowledged. */
export type JobReport = {
  /** `job: expected phase, stored phase (or missing)` for every job stored wrong. */
  wrong: string[];
  /** Jobs stored that the scheduler never showed. */
  invented: string[];
  /** Acknowledged records whose phase the stored row is behind of. */
  regressed: string[];
  /** Spooled sequences the server never acknowledged. */
  unacknowledged: number[];
  ackedRecords: number;
};

/** Every job the scheduler showed is stored once, in the phase it is in now. */
export function checkJobs(
  stored: StoredState,
  expected: Map<string, JobPhase>,
  cluster: string,
  lastSeq: number,
): JobReport {
  const report: JobReport = { wrong: [], invented: [], regressed: [], unacknowledged: [], ackedRecords: 0 };
  for (const [jobId, phase] of expected) {
    const row = stored.jobs.get(jobId);
    if (row?.phase !== phase || row.idempotencyKey !== `${cluster}:${jobId}:${phase}`)
      report.wrong.push(
        `${jobId}: expected ${phase}, stored ${row ? `${row.phase} (${row.idempotencyKey})` : "nothing"}`,
      );
  }
  for (const jobId of stored.jobs.keys()) if (!expected.has(jobId)) report.invented.push(jobId);
  const acked = stored.ackedJobs;
  for (let seq = 1; seq <= lastSeq; seq++)
    if (!acked.has(seq) && !stored.ackedEvents.has(seq)) report.unacknowledged.push(seq);
  for (const acks of acked.values()) {
    const { jobId, phase } = acks[0].value as { jobId: string; phase: JobPhase };
    const row = stored.jobs.get(jobId);
    if (!row || RANK[row.phase] < RANK[phase]) report.regressed.push(`${jobId}: acked ${phase}`);
  }
  report.ackedRecords = acked.size;
  return report;
}

/**
 * The non-empty lists of a report (at most 10 entries each): `{}` when all is well, and what went
 * wrong, readable in the assertion's diff, when not.
 */
export function problemsOf(report: LedgerReport | JobReport): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, value] of Object.entries(report))
    if (Array.isArray(value) && value.length > 0)
      out[name] = value.length > 10 ? [...value.slice(0, 10), `…${value.length - 10} more`] : value;
  return out;
}
