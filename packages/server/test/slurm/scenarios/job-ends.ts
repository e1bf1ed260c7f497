import { setTimeout as sleep } from "node:timers/promises";
import { isTerminal, type SlurmClient } from "../../../../../test/slurm/index.js";

/**
 * Learns when jobs end from ONE `sacct -P -X` poll a second for all of them (a poll per job would
 * keep both cores busy with sacct on the test machine). A job has ended when its accounting row
 * has a terminal state and a time limit (not the placeholder row slurmdbd shows for a moment).
 *
 * @example
 * const ends = new JobEnds(slurmClient());
 * ends.track("42");
 * await ends.ended("42");
 * ends.stop();
 */
export class JobEnds {
  private readonly client: SlurmClient;
  private readonly waiting = new Map<
    string,
    { promise: Promise<string>; resolve: (state: string) => void }
  >();
  private readonly states = new Map<string, string>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(client: SlurmClient) {
    this.client = client;
  }

  track(jobId: string): void {
    if (this.waiting.has(jobId)) return;
    let resolve!: (state: string) => void;
    const promise = new Promise<string>((r) => {
      resolve = r;
    });
    this.waiting.set(jobId, { promise, resolve });
    this.running ??= this.loop();
  }

  /** Resolves with the job's final state (first word) once it ended. */
  ended(jobId: string): Promise<string> {
    this.track(jobId);
    return this.waiting.get(jobId)!.promise;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const open = [...this.waiting.keys()].filter((id) => !this.states.has(id));
      if (open.length > 0) {
        const rows = await this.client
          .sacctParsable(["JobID", "State", "TimelimitRaw"], ["-X", "-j", open.join(",")])
          .catch(() => []);
        for (const row of rows) {
          const state = row.State.split(/\s+/)[0];
          if (!open.includes(row.JobID) || row.TimelimitRaw === "" || !isTerminal(state)) continue;
          this.states.set(row.JobID, state);
          this.waiting.get(row.JobID)?.resolve(state);
        }
      }
      await sleep(1_000);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
