import { setTimeout as sleep } from "node:timers/promises";
import type { Diagnosis, JobRecord } from "@jobsight/schemas";

/** GETs a path of the REST API; undefined when it answers 404. */
export type ApiGet = <T>(path: string) => Promise<T | undefined>;

/** What a diagnosis says, for telling when it stopped changing. */
export function diagnosisSignature(d: Diagnosis): string {
  return JSON.stringify([
    d.state ?? null,
    d.findings.map((f) => f.kind).sort(),
    [...new Set(d.unseen.map((u) => u.source))].sort(),
  ]);
}

/** When a job ended and when its diagnosis first said what it says in the end. */
export type DiagnosisLatency = {
  endedAt: string | undefined;
  /** Milliseconds from the job's end (sacct End, as the record carries it) to that first GET. */
  ms: number | undefined;
};

/** Each change of the served diagnosis, in order: when a new signature was first served. */
type Watched = { changes: { sig: string; at: number }[]; endedAt?: string; done: Promise<void> };

/**
 * Watches jobs through the REST API as a user waiting for an answer would: polls each job's record
 * every second until it has an outcome, then GETs its diagnosis every 500 ms for `watchMs`, noting
 * each time the diagnosis served (state, finding kinds, unseen sources) changed.
 *
 * @example
 * const watch = new DiagnosisWatch(get, "cluster=c1");
 * watch.watch("42");
 * // … later, with the settled diagnosis:
 * watch.latency("42", final).ms; // 2150
 */
export class DiagnosisWatch {
  private readonly get: ApiGet;
  private readonly query: string;
  private readonly watchMs: number;
  private readonly jobs = new Map<string, Watched>();
  private stopped = false;

  constructor(get: ApiGet, query: string, watchMs = 15_000) {
    this.get = get;
    this.query = query;
    this.watchMs = watchMs;
  }

  watch(jobId: string): void {
    const w: Watched = { changes: [], done: Promise.resolve() };
    w.done = this.follow(jobId, w).catch(() => {});
    this.jobs.set(jobId, w);
  }

  private async follow(jobId: string, w: Watched): Promise<void> {
    while (!this.stopped) {
      const record = await this.get<JobRecord>(`/v1/jobs/${jobId}?${this.query}`).catch(() => undefined);
      if (record?.outcome && record.endedAt) {
        w.endedAt = record.endedAt;
        break;
      }
      await sleep(1_000);
    }
    const until = Date.now() + this.watchMs;
    while (!this.stopped && Date.now() < until) {
      const d = await this.get<Diagnosis>(`/v1/jobs/${jobId}/diagnosis?${this.query}`).catch(() => undefined);
      const at = Date.now();
      if (d) {
        const sig = diagnosisSignature(d);
        if (w.changes.at(-1)?.sig !== sig) w.changes.push({ sig, at });
      }
      await sleep(500);
    }
  }

  /** Waits until every watched job's watch is over. */
  async settled(): Promise<void> {
    await Promise.all([...this.jobs.values()].map((w) => w.done));
  }

  stop(): void {
    this.stopped = true;
  }

  latency(jobId: string, final: Diagnosis): DiagnosisLatency {
    const w = this.jobs.get(jobId);
    // When it became final for good: a diagnosis that said it, changed and came back counts from its return.
    const last = w?.changes.at(-1);
    const at = last?.sig === diagnosisSignature(final) ? last.at : undefined;
    const endedAt = w?.endedAt;
    return { endedAt, ms: at !== undefined && endedAt ? at - Date.parse(endedAt) : undefined };
  }
}
