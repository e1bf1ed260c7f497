import { afterEach, describe, expect, it } from "vitest";
import { CgroupTree } from "../test-support/cgroup-tree.js";
import { CgroupV2Discovery } from "./cgroup-v2-discovery.js";

describe("CgroupV2Discovery", () => {
  let tree: CgroupTree;
  afterEach(() => tree.cleanup());

  it("finds SLURM jobs with their extern, batch, interactive and numbered steps", () => {
    tree = new CgroupTree();
    tree.slurmJob("101", { steps: ["extern", "batch", "0", "1"] });
    tree.slurmJob("102", { steps: ["extern", "interactive"] });
    const jobs = new CgroupV2Discovery({ root: tree.root }).discover();
    expect(jobs.map((j) => j.jobId).sort()).toEqual(["101", "102"]);
    const j101 = jobs.find((j) => j.jobId === "101")!;
    expect(j101.steps.map((s) => s.step).sort()).toEqual(["0", "1", "batch", "extern"]);
    expect(j101.dir).toBe(`${tree.root}/system.slice/slurmstepd.scope/job_101`);
  });

  it("finds jobs of several slurmd on one node and non-numeric job directories", () => {
    tree = new CgroupTree();
    tree.slurmJob("5", { nodePrefix: "n1" });
    tree.slurmJob("x9f2", { nodePrefix: "n2" });
    const jobs = new CgroupV2Discovery({ root: tree.root }).discover();
    expect(jobs.map((j) => [j.nodePrefix, j.jobId]).sort()).toEqual([
      ["n1", "5"],
      ["n2", "x9f2"],
    ]);
  });

  it("finds pods of every QoS class, containerd and CRI-O, and skips conmon scopes", () => {
    tree = new CgroupTree();
    tree.pod("11111111-2222-3333-4444-555555555555", { qos: "burstable", containers: ["ab12"] });
    tree.pod("21111111-2222-3333-4444-555555555555", { qos: "besteffort", containers: ["cd34"] });
    tree.pod("31111111-2222-3333-4444-555555555555", {
      qos: "guaranteed",
      runtime: "crio",
      containers: ["ef56"],
    });
    tree.pod("41111111-2222-3333-4444-555555555555", {
      qos: "burstable",
      cgroupfs: true,
      containers: ["f".repeat(64)],
    });
    const jobs = new CgroupV2Discovery({ root: tree.root }).discover();
    expect(jobs).toHaveLength(4);
    const byId = new Map(jobs.map((j) => [j.jobId, j]));
    expect(byId.get("31111111-2222-3333-4444-555555555555")?.qos).toBe("guaranteed");
    expect(byId.get("31111111-2222-3333-4444-555555555555")?.steps.map((s) => s.step)).toEqual(["ef56"]);
    expect(byId.get("21111111-2222-3333-4444-555555555555")?.steps.map((s) => s.step)).toEqual(["cd34"]);
    expect(byId.get("41111111-2222-3333-4444-555555555555")?.steps).toHaveLength(1);
  });

  it("returns nothing for an empty or missing root", () => {
    tree = new CgroupTree();
    expect(new CgroupV2Discovery({ root: tree.root }).discover()).toEqual([]);
    expect(new CgroupV2Discovery({ root: `${tree.root}/nope` }).discover()).toEqual([]);
  });

  it("does not see a job whose cgroup was removed", () => {
    tree = new CgroupTree();
    const dir = tree.slurmJob("1");
    tree.slurmJob("2");
    tree.remove(dir);
    expect(new CgroupV2Discovery({ root: tree.root }).discover().map((j) => j.jobId)).toEqual(["2"]);
  });
});
