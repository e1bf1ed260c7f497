import { afterEach, describe, expect, it } from "vitest";
import { ProcTree } from "../test-support/proc-tree.js";
import { countJobThreads } from "./job-threads.js";
import type { JobProcesses } from "./proc-job-attribution.js";
import { ProcReader } from "./proc-reader.js";

describe("countJobThreads", () => {
  let tree: ProcTree;
  afterEach(() => tree.cleanup());

  /** The job's processes as the /proc scan reads them. */
  function job(proc: ProcReader, pids: number[]): JobProcesses {
    return { scheduler: "slurm", jobId: "4242", processes: pids.map((pid) => proc.stat(pid)!) };
  }

  it("counts every runnable thread: single-threaded ranks by their state, a thread pool thread by thread", () => {
    tree = new ProcTree();
    // Four MPI ranks, three on a core and one waiting on I/O, and one OpenMP process of 16 threads.
    for (const [pid, state] of [
      [100, "R"],
      [101, "R"],
      [102, "R"],
      [103, "D"],
    ] as const)
      tree.add({ pid, comm: "lmp", state });
    tree.add({
      pid: 200,
      comm: "solver",
      state: "R",
      threads: Array.from({ length: 15 }, (_, i) => ({ tid: 201 + i, state: i < 11 ? "R" : "S" })),
    });
    const proc = new ProcReader({ root: tree.root });
    expect(countJobThreads(job(proc, [100, 101, 102, 103, 200]), proc)).toEqual({
      threads: 20,
      runnableThreads: 3 + 12,
    });
  });

  it("gives no runnable count rather than a partial one when the threads exceed the read budget", () => {
    tree = new ProcTree();
    tree.add({
      pid: 300,
      comm: "java",
      state: "S",
      threads: Array.from({ length: 9 }, (_, i) => ({ tid: 301 + i, state: "R" })),
    });
    const proc = new ProcReader({ root: tree.root });
    expect(countJobThreads(job(proc, [300]), proc, 8)).toEqual({ threads: 10 });
    expect(countJobThreads(job(proc, [300]), proc, 10)).toEqual({ threads: 10, runnableThreads: 9 });
  });

  it("counts nothing runnable for a process that exited after the scan", () => {
    tree = new ProcTree();
    tree.add({ pid: 400, comm: "python", state: "R", threads: [{ tid: 401, state: "R" }] });
    const proc = new ProcReader({ root: tree.root });
    const scanned = job(proc, [400]);
    tree.remove(400);
    expect(countJobThreads(scanned, proc)).toEqual({ threads: 2, runnableThreads: 0 });
  });
});
