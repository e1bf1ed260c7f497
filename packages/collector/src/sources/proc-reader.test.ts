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
});
