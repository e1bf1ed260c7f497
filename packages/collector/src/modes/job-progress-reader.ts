import { readlink, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { type Logger, silentLogger } from "../log/logger.js";
import {
  DEFAULT_OUTPUT_PATTERNS,
  type JobProgress,
  type OutputPattern,
  parseProgressFile,
  progressFromOutput,
} from "../sources/job-progress.js";
import type { JobProcesses } from "../sources/proc-job-attribution.js";
import type { ProcReader } from "../sources/proc-reader.js";
import { MAX_STDERR_TAIL_BYTES, readStderrTail } from "./slurm-stderr.js";

/** The variable a job sets to name its progress file (absolute, or relative to its working directory). */
export const PROGRESS_FILE_VARIABLE = "JOBSIGHT_PROGRESS_FILE";

/** A progress file holds one short line; more than this is not read. */
export const MAX_PROGRESS_FILE_BYTES = 4096;

/** Options of {@link JobProgressReader}. */
export type JobProgressReaderOptions = {
  proc: ProcReader;
  /** The progress file looked for in a job's working directory. @default ".jobsight-progress" */
  fileName?: string;
  /** Look for progress lines in the tail of the job's output files. @default true */
  output?: boolean;
  /** The progress lines looked for in the output. @default {@link DEFAULT_OUTPUT_PATTERNS} */
  outputPatterns?: readonly OutputPattern[];
  /** The oldest processes of a job asked where its files are. @default 8 */
  maxProcesses?: number;
  /** @default silent */
  logger?: Logger;
};

type Candidate = { pid: number; uid: number; root: string; cwd?: string };

/**
 * Measures each running job's progress where the job makes it measurable, in order: the file its
 * processes name in `$JOBSIGHT_PROGRESS_FILE`, the `.jobsight-progress` file in a process's
 * working directory, then progress lines (tqdm, `step 1200/5000`, `Epoch 3/10`) in the last 8 KiB
 * of the files its stdout and stderr go to. Paths are resolved inside the process's own root
 * (`/proc/<pid>/root`, so a container's files are found too) and read as the job's output tails
 * are: regular files owned by the process's user, without following a final symlink, size-bounded.
 * Nothing here throws: a job whose progress cannot be read simply has none this round.
 *
 * @example
 * ```ts
 * const progress = new JobProgressReader({ proc });
 * const byJob = await progress.readAll(attribution.scan()); // Map { "4242" => { done: 1200, total: 5000, unit: "step" } }
 * ```
 */
export class JobProgressReader {
  private readonly o: JobProgressReaderOptions;
  private readonly log: Logger;
  // A process's environment is fixed at exec: read it once per (pid, start time).
  private readonly declared = new Map<number, { starttime: number; file: string | undefined }>();

  constructor(options: JobProgressReaderOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
  }

  /** The progress of every job that reports one; never rejects. */
  async readAll(byJob: ReadonlyMap<string, JobProcesses>): Promise<Map<string, JobProgress>> {
    const out = new Map<string, JobProgress>();
    const live = new Set<number>();
    for (const [jobId, job] of byJob) {
      for (const p of job.processes) live.add(p.pid);
      try {
        const progress = await this.read(job);
        if (progress) out.set(jobId, progress);
      } catch (error) {
        this.log.debug("job progress not read", { jobId, error });
      }
    }
    for (const pid of this.declared.keys()) if (!live.has(pid)) this.declared.delete(pid);
    return out;
  }

  /** One job's progress, or undefined when it reports none that can be read. */
  async read(job: JobProcesses): Promise<JobProgress | undefined> {
    const oldest = [...job.processes]
      .sort((a, b) => a.starttime - b.starttime || a.pid - b.pid)
      .slice(0, this.o.maxProcesses ?? 8);
    const candidates: Candidate[] = [];
    for (const p of oldest) {
      const dir = `${this.o.proc.root}/${p.pid}`;
      const uid = await stat(dir).then(
        (s) => s.uid,
        () => undefined,
      );
      if (uid === undefined) continue;
      const cwd = await readlink(`${dir}/cwd`).catch(() => undefined);
      candidates.push({
        pid: p.pid,
        uid,
        root: `${dir}/root`,
        cwd: cwd && isAbsolute(cwd) ? cwd : undefined,
      });
      if (this.declared.get(p.pid)?.starttime !== p.starttime) {
        const file = this.o.proc.environVariable(p.pid, PROGRESS_FILE_VARIABLE);
        this.declared.set(p.pid, { starttime: p.starttime, file });
      }
    }
    const tried = new Set<string>();
    const readFile = async (c: Candidate, path: string, maxBytes: number) => {
      const full = `${c.root}${path}`;
      if (tried.has(full)) return undefined;
      tried.add(full);
      return (await readStderrTail(full, { ownerUid: c.uid, maxBytes }))?.text;
    };
    for (const c of candidates) {
      const named = this.declared.get(c.pid)?.file;
      const path = named && (isAbsolute(named) ? named : c.cwd && join(c.cwd, named));
      const text = path ? await readFile(c, path, MAX_PROGRESS_FILE_BYTES) : undefined;
      const found = text !== undefined ? parseProgressFile(text) : undefined;
      if (found) return found;
    }
    for (const c of candidates) {
      if (!c.cwd) continue;
      const text = await readFile(
        c,
        join(c.cwd, this.o.fileName ?? ".jobsight-progress"),
        MAX_PROGRESS_FILE_BYTES,
      );
      const found = text !== undefined ? parseProgressFile(text) : undefined;
      if (found) return found;
    }
    if (this.o.output === false) return undefined;
    for (const c of candidates) {
      for (const fd of [1, 2]) {
        const target = await readlink(`${this.o.proc.root}/${c.pid}/fd/${fd}`).catch(() => undefined);
        // Terminals, pipes and sockets (`pipe:[…]`) hold no tail to read.
        if (!target || !isAbsolute(target) || target.startsWith("/dev/")) continue;
        const text = await readFile(c, target, MAX_STDERR_TAIL_BYTES);
        const found =
          text !== undefined
            ? progressFromOutput(text, this.o.outputPatterns ?? DEFAULT_OUTPUT_PATTERNS)
            : undefined;
        if (found) return found;
      }
    }
    return undefined;
  }
}
