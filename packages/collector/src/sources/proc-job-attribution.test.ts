import { afterEach, describe, expect, it } from "vitest";
import { ProcTree } from "../test-support/proc-tree.js";
import { notableProcesses, ProcJobAttribution, summariseProcesses } from "./proc-job-attribution.js";
import { ProcReader } from "./proc-reader.js";

const MiB = 1024 * 1024;

describe("ProcJobAttribution", () => {
  let tree: ProcTree;
  afterEach(() => tree.cleanup());

  function slurmNode(): ProcTree {
    const t = new ProcTree();
    t.add({ pid: 1, comm: "init" });
    t.add({ pid: 500, comm: "slurmd" });
    // Job 42: a batch step and an srun step; tasks are children (and grandchildren) of the stepd.
    t.add({ pid: 600, ppid: 1, comm: "slurmstepd", cmdline: ["slurmstepd: [42.batch]"], rssBytes: 50 * MiB });
    t.add({ pid: 601, ppid: 600, comm: "bash", rssBytes: 4 * MiB, utime: 10, stime: 5 });
    t.add({
      pid: 602,
      ppid: 601,
      comm: "python",
      rssBytes: 900 * MiB,
      utime: 3000,
      stime: 200,
      cutime: 100,
      cstime: 0,
    });
    t.add({ pid: 603, ppid: 601, comm: "dd", state: "D", rssBytes: 1 * MiB, utime: 1, stime: 80 });
    // Job 43 found only through its environment (re-parented to init after its parent exited).
    t.add({
      pid: 700,
      ppid: 1,
      comm: "orphan",
      rssBytes: 64 * MiB,
      environ: { SLURM_JOB_ID: "43" },
      utime: 100,
    });
    // Not a job.
    t.add({ pid: 800, ppid: 1, comm: "sshd", rssBytes: 10 * MiB });
    return t;
  }

  it("attributes processes to SLURM jobs by slurmstepd ancestry and SLURM_JOB_ID, without cgroups", () => {
    tree = slurmNode();
    const proc = new ProcReader({ root: tree.root });
    const jobs = new ProcJobAttribution({ proc, byCgroup: false }).scan();
    expect([...jobs.keys()].sort()).toEqual(["42", "43"]);
    expect(
      jobs
        .get("42")!
        .processes.map((p) => p.pid)
        .sort(),
    ).toEqual([601, 602, 603]);
    const totals = summariseProcesses(jobs.get("42")!, 4096);
    expect(totals.rssBytes).toBe(905 * MiB);
    expect(totals.cpuSeconds).toBe((15 + 3300 + 81) / 100);
    expect(totals.count).toBe(3);
    expect(summariseProcesses(jobs.get("43")!, 4096).rssBytes).toBe(64 * MiB);
  });

  it("names the top memory holders and every process stuck in state D", () => {
    tree = slurmNode();
    const proc = new ProcReader({ root: tree.root });
    const job = new ProcJobAttribution({ proc, byCgroup: false }).scan().get("42")!;
    const top = notableProcesses(job, proc, 1);
    expect(top).toEqual([
      { pid: 602, command: "python", rssBytes: 900 * MiB, state: "S" },
      { pid: 603, command: "dd", rssBytes: 1 * MiB, state: "D" },
    ]);
  });

  it("attributes by /proc/<pid>/cgroup where the node has cgroups", () => {
    tree = new ProcTree();
    tree.add({
      pid: 20,
      comm: "python",
      cgroup: "0::/system.slice/slurmstepd.scope/job_9/step_0/user/task_0\n",
    });
    tree.add({
      pid: 21,
      comm: "nginx",
      cgroup:
        "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podab_cd.slice/cri-containerd-01.scope\n",
    });
    const jobs = new ProcJobAttribution({ proc: new ProcReader({ root: tree.root }) }).scan();
    expect(jobs.get("9")?.scheduler).toBe("slurm");
    expect(jobs.get("ab-cd")?.scheduler).toBe("kubernetes");
  });

  it("keeps working when processes exit between rounds and forgets them", () => {
    tree = slurmNode();
    const attribution = new ProcJobAttribution({
      proc: new ProcReader({ root: tree.root }),
      byCgroup: false,
    });
    expect(attribution.scan().get("42")?.processes).toHaveLength(3);
    tree.remove(602);
    tree.remove(700);
    const jobs = attribution.scan();
    expect(
      jobs
        .get("42")
        ?.processes.map((p) => p.pid)
        .sort(),
    ).toEqual([601, 603]);
    expect(jobs.has("43")).toBe(false);
  });
});
