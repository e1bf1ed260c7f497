import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcTree } from "../../test-support/proc-tree.js";
import { ProcJobAttribution } from "../proc-job-attribution.js";
import { ProcReader } from "../proc-reader.js";
import { parseDevicesList, parseGpuIdList, SlurmGpuAllocation } from "./slurm-gpu-allocation.js";

const UUID_A = "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69";
const UUID_B = "GPU-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

describe("GPU lists of a job's environment and device cgroup", () => {
  it("reads SLURM's device numbers and CUDA's UUIDs, and nothing from an empty or device-less list", () => {
    expect(parseGpuIdList("0,2")).toEqual([{ minor: 0 }, { minor: 2 }]);
    expect(parseGpuIdList(`${UUID_A},${UUID_B}`)).toEqual([{ uuid: UUID_A }, { uuid: UUID_B }]);
    expect(parseGpuIdList("NoDevFiles")).toEqual([]);
    expect(parseGpuIdList("")).toEqual([]);
    expect(parseGpuIdList("-1")).toEqual([]);
    // MIG instances as CUDA names them: by MIG UUID, and (before driver R470) MIG-GPU-<uuid>/<gi>/<ci>.
    expect(parseGpuIdList("MIG-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e")).toEqual([
      { mig: { uuid: "MIG-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e" } },
    ]);
    expect(parseGpuIdList(`MIG-${UUID_A}/7/0`)).toEqual([
      { mig: { uuid: `MIG-${UUID_A}/7/0`, parentUuid: UUID_A, gpuInstanceId: 7 } },
    ]);
    expect(parseGpuIdList("MIG-1b2c")).toEqual([]);
  });

  it("takes the NVIDIA minors a devices.list allows, and nothing from a list that allows everything", () => {
    // What SLURM's task/cgroup leaves for a job given /dev/nvidia1 and /dev/nvidia3 (195:255 is nvidiactl).
    const list = [
      "c 1:3 rwm",
      "c 1:5 rwm",
      "c 1:9 rwm",
      "c 136:* rwm",
      "c 195:255 rwm",
      "c 195:254 rwm",
      "c 508:0 rwm",
      "c 195:1 rwm",
      "c 195:3 rwm",
      "",
    ].join("\n");
    expect(parseDevicesList(list)).toEqual([1, 3]);
    expect(parseDevicesList("a *:* rwm\n")).toBeUndefined();
    expect(parseDevicesList("c 1:3 rwm\nc 195:* rwm\n")).toBeUndefined();
    expect(parseDevicesList("c 1:3 rwm\n")).toEqual([]);
  });
});

describe("SlurmGpuAllocation", () => {
  let proc: ProcTree;
  let cgroup: string;
  beforeEach(() => {
    proc = new ProcTree();
    cgroup = mkdtempSync(join(tmpdir(), "jobsight-cgv1-"));
  });
  afterEach(() => {
    proc.cleanup();
    rmSync(cgroup, { recursive: true, force: true });
  });

  const jobCgroup = (job: string) => `0::/system.slice/slurmstepd.scope/job_${job}/step_batch/user/task_0\n`;

  it("gives each SLURM job the GPUs its processes' environments name, idle ones included", () => {
    // Batch script and an srun step of job 51; job 52 names its GPU by UUID; a pod is not SLURM's.
    proc.add({ pid: 10, comm: "bash", cgroup: jobCgroup("51"), environ: { SLURM_JOB_GPUS: "1,3" } });
    proc.add({
      pid: 11,
      comm: "python",
      cgroup: jobCgroup("51"),
      environ: { SLURM_STEP_GPUS: "3", CUDA_VISIBLE_DEVICES: "0" },
    });
    proc.add({ pid: 20, comm: "sleep", cgroup: jobCgroup("52"), environ: { CUDA_VISIBLE_DEVICES: UUID_B } });
    proc.add({ pid: 21, comm: "sleep", cgroup: jobCgroup("53"), environ: { SLURM_JOB_GPUS: "" } });
    proc.add({
      pid: 30,
      comm: "server",
      cgroup:
        "0::/kubepods.slice/kubepods-pod4a5b6c7d_1111_2222_3333_444455556666.slice/cri-containerd-0a1b.scope\n",
      environ: { CUDA_VISIBLE_DEVICES: "0" },
    });
    const reader = new ProcReader({ root: proc.root });
    const jobs = new ProcJobAttribution({ proc: reader }).scan();
    const allocation = new SlurmGpuAllocation({ proc: reader });
    const found = allocation.read(jobs);
    expect(found.get("51")).toEqual([{ minor: 1 }, { minor: 3 }]);
    expect(found.get("52")).toEqual([{ uuid: UUID_B }]);
    expect(found.has("53")).toBe(false);
    expect(found.has("4a5b6c7d-1111-2222-3333-444455556666")).toBe(false);
    // Read once per process: an environment cannot change after exec.
    writeFileSync(join(proc.root, "10", "environ"), "SLURM_JOB_GPUS=7\0");
    expect(allocation.read(jobs).get("51")).toEqual([{ minor: 1 }, { minor: 3 }]);
  });

  it("reads a cgroup v1 job's device allow-list when its processes' environments say nothing", () => {
    const rel = join("slurm", "uid_1000", "job_61");
    mkdirSync(join(cgroup, "memory", rel), { recursive: true });
    mkdirSync(join(cgroup, "devices", rel), { recursive: true });
    writeFileSync(join(cgroup, "devices", rel, "devices.list"), "c 1:3 rwm\nc 195:255 rwm\nc 195:2 rwm\n");
    const allocation = new SlurmGpuAllocation({
      proc: new ProcReader({ root: proc.root }),
      cgroupV1Root: cgroup,
    });
    const found = allocation.read(undefined, new Map([["61", join(cgroup, "memory", rel)]]));
    expect(found.get("61")).toEqual([{ minor: 2 }]);
  });
});
