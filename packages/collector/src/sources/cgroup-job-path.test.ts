import { describe, expect, it } from "vitest";
import { jobFromCgroupPath, jobFromProcCgroup } from "./cgroup-job-path.js";

describe("jobFromCgroupPath", () => {
  it("reads SLURM job and step from the cgroup/v2 plugin's layout", () => {
    const id = jobFromCgroupPath("/system.slice/slurmstepd.scope/job_3385/step_0/user/task_0");
    expect(id).toMatchObject({ scheduler: "slurm", jobId: "3385", step: "0" });
    expect(id?.jobPath).toBe("/system.slice/slurmstepd.scope/job_3385");
    expect(id?.stepPath).toBe("/system.slice/slurmstepd.scope/job_3385/step_0");
  });

  it.each(["extern", "batch", "interactive", "0.1"])("recognises step_%s", (step) => {
    expect(jobFromCgroupPath(`/system.slice/slurmstepd.scope/job_9/step_${step}/slurm`)?.step).toBe(step);
  });

  it("keeps a multi-slurmd node prefix and non-numeric job directory names", () => {
    const id = jobFromCgroupPath("system.slice/node12_slurmstepd.scope/job_abc-7f/step_batch");
    expect(id).toMatchObject({ jobId: "abc-7f", nodePrefix: "node12", step: "batch" });
  });

  it("ignores the stepd waiting area and unrelated services", () => {
    expect(jobFromCgroupPath("/system.slice/slurmstepd.scope/system")).toBeUndefined();
    expect(jobFromCgroupPath("/system.slice/sshd.service")).toBeUndefined();
    expect(jobFromCgroupPath("/user.slice/user-1000.slice/session-3.scope")).toBeUndefined();
  });

  it("reads cgroup v1 SLURM paths with their uid", () => {
    expect(jobFromCgroupPath("/slurm/uid_1000/job_42/step_batch/task_0")).toMatchObject({
      jobId: "42",
      uid: 1000,
      step: "batch",
      jobPath: "/slurm/uid_1000/job_42",
    });
  });

  it("reads burstable and besteffort pods with containerd, turning underscores back into dashes", () => {
    const id = jobFromCgroupPath(
      "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1f0c2b4e_3c1d_4f5a_9a8b_0c1d2e3f4a5b.slice/cri-containerd-5d9e4c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d.scope",
    );
    expect(id).toMatchObject({
      scheduler: "kubernetes",
      jobId: "1f0c2b4e-3c1d-4f5a-9a8b-0c1d2e3f4a5b",
      qos: "burstable",
      step: "5d9e4c1b2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d",
    });
    expect(
      jobFromCgroupPath("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podaa_bb.slice")?.qos,
    ).toBe("besteffort");
  });

  it("reads guaranteed pods (no QoS slice) with CRI-O scopes", () => {
    const id = jobFromCgroupPath(
      "/kubepods.slice/kubepods-pod0a1b2c3d_0000_1111_2222_333344445555.slice/crio-0123abcd.scope",
    );
    expect(id).toMatchObject({
      jobId: "0a1b2c3d-0000-1111-2222-333344445555",
      qos: "guaranteed",
      step: "0123abcd",
    });
  });

  it("reads the cgroupfs driver layout", () => {
    const cid = "a".repeat(64);
    expect(
      jobFromCgroupPath(`/kubepods/besteffort/pod11111111-2222-3333-4444-555555555555/${cid}`),
    ).toMatchObject({
      jobId: "11111111-2222-3333-4444-555555555555",
      qos: "besteffort",
      step: cid,
    });
  });
});

describe("jobFromProcCgroup", () => {
  it("reads the single cgroup v2 line", () => {
    expect(jobFromProcCgroup("0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n")?.jobId).toBe(
      "7",
    );
  });

  it("prefers the memory controller line of a cgroup v1 process", () => {
    const text =
      "12:pids:/slurm/uid_1/job_1/step_0/task_0\n11:memory:/slurm/uid_1000/job_55/step_0/task_0\n1:name=systemd:/system.slice/slurmd.service\n";
    expect(jobFromProcCgroup(text)?.jobId).toBe("55");
  });

  it("returns nothing for a process outside any job", () => {
    expect(jobFromProcCgroup("0::/user.slice/user-1000.slice/session-1.scope\n")).toBeUndefined();
  });
});
