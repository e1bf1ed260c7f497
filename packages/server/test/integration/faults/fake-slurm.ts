import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type JobPhase = "submitted" | "started" | "ended";
type Job = { id: number; phase: JobPhase; submit: number; start?: number; end?: number };

const MB = 1024 * 1024;

/**
 * The scheduler the controller collector polls: `squeue` and `sacct` stand-ins that print the
 * JSON SLURM 22.05 prints, from files the test replaces atomically as jobs move on. Each
 * {@link advance} submits new jobs, starts those waiting and ends those running, so every job
 * goes through its three phases over three rounds, whatever the collector saw of them.
 *
 * @example
 * ```ts
 * const slurm = new FakeSlurm(dir, "faults");
 * slurm.advance(2);
 * // --squeue slurm.squeue --sacct slurm.sacct
 * ```
 */
export class FakeSlurm {
  readonly squeue: string;
  readonly sacct: string;
  private readonly jobs = new Map<number, Job>();
  private nextId = 7001;

  constructor(
    private readonly dir: string,
    private readonly user = "alice",
  ) {
    this.squeue = this.command("squeue", join(dir, "squeue.json"));
    this.sacct = this.command("sacct", join(dir, "sacct.json"));
    this.publish();
  }

  private command(name: string, json: string): string {
    const path = join(this.dir, name);
    // `sacct -P` (exit codes of failed jobs) prints nothing: every job here completes.
    writeFileSync(path, `#!/bin/sh\ncase "$*" in *--json*) cat "${json}" ;; esac\n`);
    chmodSync(path, 0o755);
    return path;
  }

  /** End what runs, start what waits, submit `submit` new jobs; publish the new state. */
  advance(submit: number): void {
    const now = Math.floor(Date.now() / 1000);
    for (const job of this.jobs.values()) {
      if (job.phase === "started") Object.assign(job, { phase: "ended", end: now });
      else if (job.phase === "submitted") Object.assign(job, { phase: "started", start: now });
    }
    for (let i = 0; i < submit; i++) {
      const id = this.nextId++;
      this.jobs.set(id, { id, phase: "submitted", submit: now });
    }
    this.publish();
  }

  /** Every job shown so far and the phase it is in now. */
  expected(): Map<string, JobPhase> {
    return new Map([...this.jobs.values()].map((j) => [String(j.id), j.phase]));
  }

  private publish(): void {
    const jobs = [...this.jobs.values()];
    this.write("squeue.json", { jobs: jobs.filter((j) => j.phase !== "ended").map((j) => this.queued(j)) });
    this.write("sacct.json", { jobs: jobs.filter((j) => j.phase === "ended").map((j) => this.accounted(j)) });
  }

  private write(name: string, value: unknown): void {
    const path = join(this.dir, name);
    writeFileSync(`${path}.tmp`, JSON.stringify(value));
    renameSync(`${path}.tmp`, path);
  }

  private queued(j: Job): Record<string, unknown> {
    return {
      job_id: j.id,
      job_state: j.phase === "started" ? "RUNNING" : "PENDING",
      user_name: this.user,
      account: "physics",
      partition: "batch",
      name: `sim-${j.id}`,
      submit_time: j.submit,
      start_time: j.start ?? 0,
      time_limit: 60,
      tres_req_str: "cpu=2,mem=2048M,node=1,billing=2",
      tres_alloc_str: j.start ? "cpu=2,mem=2048M,node=1,billing=2" : "",
      nodes: j.start ? "n1" : "",
    };
  }

  private accounted(j: Job): Record<string, unknown> {
    const tres = [
      { type: "cpu", name: null, id: 1, count: 2 },
      { type: "mem", name: null, id: 2, count: 2048 },
      { type: "node", name: null, id: 4, count: 1 },
    ];
    const elapsed = Math.max(1, (j.end ?? 0) - (j.start ?? 0));
    const success = { status: "SUCCESS", return_code: 0 };
    return {
      job_id: j.id,
      user: this.user,
      account: "physics",
      partition: "batch",
      name: `sim-${j.id}`,
      nodes: "n1",
      state: { current: "COMPLETED", reason: "None" },
      exit_code: success,
      time: {
        submission: j.submit,
        start: j.start,
        end: j.end,
        elapsed,
        limit: 60,
        total: { seconds: elapsed, microseconds: 0 },
      },
      tres: { requested: tres, allocated: tres },
      steps: [
        {
          step: { id: "batch", name: "batch" },
          state: "COMPLETED",
          exit_code: success,
          time: { elapsed },
          tres: { requested: { max: [{ type: "mem", name: null, id: 2, count: 700 * MB }] } },
        },
      ],
    };
  }
}
