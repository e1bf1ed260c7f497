import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ProcTree } from "../test-support/proc-tree.js";
import { ProcReader, parseProcStat } from "./proc-reader.js";

describe("parseProcStat", () => {
  it("parses this machine's own /proc/self/stat", () => {
    const s = parseProcStat(readFileSync("/proc/self/stat", "utf8"))!;
    expect(s.pid).toBe(process.pid);
    expect(s.ppid).toBe(process.ppid);
    expect(s.comm.length).toBeGreaterThan(0);
    expect(s.rssPages * 4096).toBeGreaterThan(1024 * 1024);
    expect("RSDZTtIWXKPL").toContain(s.state);
    expect(s.numThreads).toBeGreaterThanOrEqual(1);
  });

  it("copes with spaces and parentheses inside the command name", () => {
    const s = parseProcStat(
      "77 (tmux: (server)) S 1 77 77 0 -1 4194560 1 0 0 0 12 34 5 6 20 0 1 0 999 1000 25 184 0 0",
    )!;
    expect(s).toMatchObject({
      pid: 77,
      comm: "tmux: (server)",
      state: "S",
      utime: 12,
      stime: 34,
      cutime: 5,
      cstime: 6,
      numThreads: 1,
      starttime: 999,
      rssPages: 25,
    });
  });

  it("rejects truncated text", () => {
    expect(parseProcStat("12 (x) S 1 2")).toBeUndefined();
  });
});

describe("ProcReader", () => {
  let tree: ProcTree;
  afterEach(() => tree.cleanup());

  it("lists pids and reads stat, VmRSS, environ, cmdline and uptime from a procfs root", () => {
    tree = new ProcTree(3600.25);
    tree.add({
      pid: 10,
      comm: "bash",
      rssBytes: 4096 * 100,
      environ: { SLURM_JOB_ID: "42", SLURM_JOB_USER: "al" },
    });
    tree.add({ pid: 11, ppid: 10, comm: "slurmstepd", cmdline: ["slurmstepd: [42.batch]"] });
    const proc = new ProcReader({ root: tree.root });
    expect(proc.listPids().sort()).toEqual([10, 11]);
    expect(proc.stat(10)?.rssPages).toBe(100);
    expect(proc.vmRssBytes(10)).toBe(409_600);
    expect(proc.environVariable(10, "SLURM_JOB_ID")).toBe("42");
    expect(proc.environVariable(10, "SLURM_JOB_USER")).toBe("al");
    expect(proc.environVariable(10, "NOPE")).toBeUndefined();
    expect(proc.cmdline(11)).toBe("slurmstepd: [42.batch]");
    expect(proc.uptimeSeconds()).toBe(3600.25);
    expect(proc.stat(999)).toBeUndefined();
  });

  it("counts a process's threads in state R from task/<tid>/stat, and nothing for a process gone", () => {
    tree = new ProcTree();
    tree.add({
      pid: 20,
      comm: "solver",
      state: "R",
      threads: [
        { tid: 21, state: "R", comm: "solver" },
        { tid: 22, state: "S", comm: "solver" },
        { tid: 23, state: "R", comm: "omp (worker) 1" },
        { tid: 24, state: "D", comm: "solver" },
      ],
    });
    const proc = new ProcReader({ root: tree.root });
    expect(proc.stat(20)?.numThreads).toBe(5);
    expect(proc.runnableThreads(20)).toBe(3);
    expect(proc.runnableThreads(999)).toBeUndefined();
  });

  it("reads this machine's own threads in the kernel's format: the reading thread is running", () => {
    const proc = new ProcReader({ root: "/proc" });
    expect(proc.runnableThreads(process.pid)).toBeGreaterThanOrEqual(1);
    expect(proc.stat(process.pid)!.numThreads).toBeGreaterThanOrEqual(proc.runnableThreads(process.pid)!);
  });
});
