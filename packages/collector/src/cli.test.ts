import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CgroupTree } from "./test-support/cgroup-tree.js";
import { fakeCommand } from "./test-support/fake-command.js";
import { ProcTree } from "./test-support/proc-tree.js";
import { killIfRunning, running } from "./test-support/process-state.js";

// The real command, run from source (tsx), with a fake nvidia-smi that prints like `-lms` does.
const repo = join(import.meta.dirname, "..", "..", "..");
const cli = join(import.meta.dirname, "cli.ts");

describe("jobsight-collector", () => {
  let work: string;
  let tree: CgroupTree;
  let proc: ProcTree;
  const cleanups: (() => void)[] = [];
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), "jobsight-cli-"));
    tree = new CgroupTree();
    proc = new ProcTree();
    tree.slurmJob("42");
  });
  afterEach(() => {
    for (const c of cleanups.splice(0).reverse()) c();
    tree.cleanup();
    proc.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it.each(["SIGTERM", "SIGINT", "SIGKILL"] as const)(
    "leaves no nvidia-smi running once it is stopped with %s",
    async (signal) => {
      const smi = fakeCommand(
        "nvidia-smi",
        `case "$*" in
  *--query-compute-apps*) ;;
  *) trap '' PIPE # like an nvidia-smi stuck in the driver: a closed stdout does not end it
     echo $$ >> "$(dirname "$0")/pids"
     while :; do echo "0, GPU-1, 00000000:3B:00.0, 5, 10, 100, 50.00, 40"; sleep 0.2; done ;;
esac`,
      );
      cleanups.push(smi.cleanup);
      const args = [
        ["--import", "tsx", cli, "run", "--cluster", "c1", "--node", "n1", "--interval", "1"],
        ["--cgroup-root", tree.root, "--cgroup-version", "v2", "--proc-root", proc.root],
        ["--gpu", "on", "--nvidia-smi", smi.path, "--kmsg", "false", "--spool-dir", join(work, "spool")],
        ["--health-port", "0", "--log-level", "error"],
      ].flat();
      const collector: ChildProcess = spawn(process.execPath, args, {
        cwd: repo,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      collector.stderr!.on("data", (d) => (stderr += d));
      cleanups.push(() => killIfRunning(collector.pid!));
      const pidsFile = join(smi.dir, "pids");
      const smiPids = () =>
        existsSync(pidsFile) ? readFileSync(pidsFile, "utf8").trim().split("\n").map(Number) : [];
      cleanups.push(() => smiPids().forEach(killIfRunning));
      await vi.waitFor(() => expect(smiPids().filter(running), stderr).toHaveLength(1), { timeout: 15_000 });
      const exited = new Promise<number | null>((r) => collector.once("exit", (code) => r(code)));
      collector.kill(signal);
      const code = await exited;
      if (signal !== "SIGKILL") expect(code, stderr).toBe(0);
      await vi.waitFor(() => expect(smiPids().filter(running)).toEqual([]), { timeout: 5000 });
    },
  );
});
