import type { JobRecord } from "@jobsight/schemas/light";
import { type Logger, silentLogger } from "../log/logger.js";
import type { DiskSpool } from "../spool/disk-spool.js";
import { HeldRecords } from "../spool/held-records.js";
import { runCommand } from "../util/run-command.js";
import { markMemoryKill } from "./memory-kill.js";
import { type ExitInfo, exitFromParsable, jobsOf, sacctTime } from "./slurm-json.js";
import { OutputPatternMemory } from "./slurm-output-patterns.js";
import { recordFromSacct, recordFromSqueue, type SlurmRecord } from "./slurm-records.js";
import { MAX_STDERR_TAIL_BYTES, readStderrTail, uidFromGetent } from "./slurm-stderr.js";

/** Options of {@link SlurmController}. */
export type SlurmControllerOptions = {
  cluster: string;
  spool: DiskSpool;
  /** The squeue command. @default "squeue" */
  squeueCommand?: string;
  /** The sacct command. @default "sacct" */
  sacctCommand?: string;
  /** Time between polls. @default 30000 */
  intervalMs?: number;
  /** How far back the first sacct query reaches. @default 60 */
  lookbackMinutes?: number;
  /**
   * How long after a job's end its record may wait for its steps' accounting (a step still
   * running, or none recorded yet for a job that ran), in milliseconds; past that it is sent
   * as it is. @default 60000
   */
  stepGraceMs?: number;
  /**
   * Bytes read from the end of a failed job's stderr file (where the controller sees the job's file
   * system), sent in its record to the site's server only; at most 8192, 0 reads none. @default 8192
   */
  stderrTailBytes?: number;
  /** The uid of a user name, to read only files the job's user owns. @default `getent passwd` */
  uidOf?: (user: string) => Promise<number | undefined>;
  /** Runs a command and returns its output. @default runCommand */
  run?: (command: string, args: string[]) => Promise<string>;
  /** Clock. @default Date.now */
  now?: () => number;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** Figures for health output. */
export type SlurmControllerStats = {
  polls: number;
  failedPolls: number;
  records: number;
  /** Ended jobs held back for a poll because their steps' accounting had not arrived yet. */
  deferredEnds: number;
  /** Failed jobs whose stderr tail was read. */
  stderrTails: number;
  lastPollAt: string | null;
};

const phaseRank: Record<string, number> = { submitted: 0, started: 1, ended: 2 };

/**
 * Controller mode for SLURM: polls `squeue --json` for waiting and running jobs and
 * `sacct --json` for ended ones, and spools one {@link JobRecord} per job and phase (submitted,
 * started, ended). Each record's idempotency key is `<cluster>:<job>:<phase>`, so records sent
 * again after a restart are stored once. Where SLURM 22.05's sacct JSON misreports an exit code
 * (exit 1 and 3 as success), the raw wait status from squeue or `sacct -P` is used instead.
 *
 * @example
 * ```ts
 * const controller = new SlurmController({ cluster: "hpc1", spool });
 * controller.start();
 * ```
 */
export class SlurmController {
  private readonly o: SlurmControllerOptions;
  private readonly run: (command: string, args: string[]) => Promise<string>;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly out: HeldRecords;
  private readonly emitted = new Map<string, string>();
  private readonly squeueExits = new Map<string, ExitInfo>();
  private readonly outputPatterns = new OutputPatternMemory();
  private readonly uids = new Map<string, Promise<number | undefined>>();
  private sacctFrom: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly figures: SlurmControllerStats = {
    polls: 0,
    failedPolls: 0,
    records: 0,
    deferredEnds: 0,
    stderrTails: 0,
    lastPollAt: null,
  };

  constructor(options: SlurmControllerOptions) {
    this.o = options;
    this.run = options.run ?? ((c, a) => runCommand(c, a));
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
    this.out = new HeldRecords({ spool: options.spool });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.o.intervalMs ?? 30_000);
    void this.poll();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One poll (skipped while one runs). Resolves, never rejects. */
  poll(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.once()
      .then(() => {
        this.figures.polls++;
      })
      .catch((error) => {
        this.figures.failedPolls++;
        this.log.error("SLURM poll failed", { error });
      })
      .finally(() => {
        this.figures.lastPollAt = new Date(this.now()).toISOString();
        this.running = undefined;
      });
    return this.running;
  }

  private async once(): Promise<void> {
    // Loaded on first use: only the controller needs the full schema validators.
    const { validateJobRecord } = await import("@jobsight/schemas");
    const validate = (r: JobRecord) => validateJobRecord(r) as { ok: boolean; errors?: unknown[] };
    const started = this.now();
    const out: JobRecord[] = [];
    const squeueJobs = jobsOf(await this.run(this.o.squeueCommand ?? "squeue", ["--json"]), "squeue");
    for (const job of squeueJobs) {
      const r = recordFromSqueue(job, this.o.cluster);
      if (!r) continue;
      // Where its stderr goes, for after its end: 22.05's sacct does not say.
      if (this.emitted.get(r.record.jobId) !== "ended") this.outputPatterns.remember(job);
      if (r.record.phase === "ended") {
        // squeue's raw wait status is right where sacct's JSON is not: keep it for the sacct record.
        const o = r.record.outcome;
        this.squeueExits.set(r.record.jobId, { exitCode: o?.exitCode, signal: o?.signal, trusted: true });
        continue;
      }
      this.emit(out, r, validate);
    }

    const from = this.sacctFrom ?? started - (this.o.lookbackMinutes ?? 60) * 60_000;
    const sacctJobs = jobsOf(
      await this.run(this.o.sacctCommand ?? "sacct", ["--json", "-a", "-S", sacctTime(from), "-E", "now"]),
      "sacct",
    );
    const endedRecords: SlurmRecord[] = [];
    for (const job of sacctJobs) {
      const r = recordFromSacct(job, this.o.cluster, this.outputPatterns.ofSacctJob(job));
      if (r?.record.phase !== "ended" || this.emitted.get(r.record.jobId) === "ended") continue;
      // slurmdbd may record a job's end before its batch step's (a timeout's step is killed
      // after): its MaxRSS would be missing for good, since an ended job is sent once.
      const endedMs = Date.parse(r.record.endedAt ?? "");
      if (stepsUnsettled(r.record) && started - endedMs <= (this.o.stepGraceMs ?? 60_000)) {
        this.figures.deferredEnds++;
        continue;
      }
      endedRecords.push(r);
    }
    await this.correctExits(endedRecords);
    await this.attachStderrTails(endedRecords);
    for (const r of endedRecords) {
      markMemoryKill(r.record);
      this.emit(out, r, validate);
      this.outputPatterns.forget(r.record.jobId);
    }
    // Overlap polls by five minutes: a job ending during a poll is found by the next one.
    this.sacctFrom = started - 5 * 60_000;

    // Held when the disk is full: a job is emitted once per phase, so its record must not be lost.
    await this.out.append(out.map((value) => ({ kind: "job" as const, value })));
    this.figures.records += out.length;
    if (this.emitted.size > 200_000) {
      for (const key of [...this.emitted.keys()].slice(0, 100_000)) this.emitted.delete(key);
    }
  }

  private async correctExits(records: SlurmRecord[]): Promise<void> {
    const doubtful: SlurmRecord[] = [];
    for (const r of records) {
      if (r.exitTrusted) continue;
      const known = this.squeueExits.get(r.record.jobId);
      if (known) setExit(r, known);
      else doubtful.push(r);
    }
    if (doubtful.length === 0) return;
    try {
      const text = await this.run(this.o.sacctCommand ?? "sacct", [
        "-P",
        "-n",
        "-o",
        "JobIDRaw,State,ExitCode",
        "-j",
        doubtful.map((r) => r.record.jobId).join(","),
      ]);
      const exits = new Map<string, ExitInfo>();
      for (const line of text.split("\n")) {
        const [id, , code] = line.split("|");
        const exit = code === undefined ? undefined : exitFromParsable(code);
        if (id && exit && !id.includes(".")) exits.set(id, exit);
      }
      for (const r of doubtful) {
        const exit = exits.get(r.record.jobId);
        if (exit) setExit(r, exit);
      }
    } catch (error) {
      this.log.warn("sacct -P failed; exit codes of some failed jobs are unknown", { error });
    }
  }

  /** Reads the end of each failed job's stderr, never failing the poll for a file it cannot read. */
  private async attachStderrTails(records: SlurmRecord[]): Promise<void> {
    const bytes = this.o.stderrTailBytes ?? MAX_STDERR_TAIL_BYTES;
    if (bytes <= 0) return;
    for (const r of records) {
      const o = r.record.outcome;
      if (!r.stderrPath || !o || !endedBadly(o)) continue;
      const ownerUid = await this.uidOfUser(r.record.spec.user);
      if (ownerUid === undefined) continue;
      const tail = await readStderrTail(r.stderrPath, { ownerUid, maxBytes: bytes });
      if (!tail) continue;
      o.stderrTail = tail;
      this.figures.stderrTails++;
    }
  }

  private uidOfUser(user: string): Promise<number | undefined> {
    let uid = this.uids.get(user);
    if (!uid) {
      uid = (this.o.uidOf ?? ((u) => uidFromGetent(this.run, u)))(user).catch(() => undefined);
      if (this.uids.size > 10_000) this.uids.clear();
      this.uids.set(user, uid);
    }
    return uid;
  }

  private emit(
    out: JobRecord[],
    r: SlurmRecord,
    validate: (r: JobRecord) => { ok: boolean; errors?: unknown[] },
  ): void {
    const { record } = r;
    // Phases only move forward: squeue may still list as running a job sacct already saw end.
    const seen = this.emitted.get(record.jobId);
    if (seen !== undefined && phaseRank[seen] >= phaseRank[record.phase]) return;
    record.idempotencyKey = `${this.o.cluster}:${record.jobId}:${record.phase}`
      .replace(/[^A-Za-z0-9._:-]/g, "_")
      .slice(0, 128);
    const v = validate(record);
    if (!v.ok) {
      this.log.warn("skipping a SLURM job that does not fit the schema", {
        jobId: record.jobId,
        errors: v.errors?.slice(0, 5),
      });
      return;
    }
    this.emitted.set(record.jobId, record.phase);
    out.push(record);
  }

  stats(): SlurmControllerStats {
    return { ...this.figures };
  }
}

/** Whether an ended job's steps are still to be accounted: one not ended, or none for a job that ran. */
function stepsUnsettled(record: JobRecord): boolean {
  const steps = record.steps;
  if (!steps || steps.length === 0)
    return record.startedAt !== undefined && (record.peaks?.runTimeSeconds ?? 0) > 0;
  return steps.some((step) => step.state === undefined);
}

/** A job whose own program may have crashed: it did not complete, or completed with a bad exit. */
function endedBadly(o: NonNullable<JobRecord["outcome"]>): boolean {
  return o.state !== "COMPLETED" || (o.exitCode ?? 0) > 0 || o.signal !== undefined;
}

function setExit(r: SlurmRecord, exit: ExitInfo): void {
  const outcome = r.record.outcome;
  if (!outcome) return;
  delete outcome.exitCode;
  delete outcome.signal;
  if (exit.signal !== undefined) outcome.signal = exit.signal;
  else if (exit.exitCode !== undefined) outcome.exitCode = exit.exitCode;
  r.exitTrusted = true;
}
