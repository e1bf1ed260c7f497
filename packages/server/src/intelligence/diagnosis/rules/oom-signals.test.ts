import { describe, expect, it } from "vitest";
import { scopeOfCgroup } from "./oom-signals.js";

describe("scopeOfCgroup", () => {
  it("tells which limit the kernel's oom_memcg names", () => {
    expect(scopeOfCgroup("/system.slice/slurmstepd.scope/job_4242")).toBe("the job's cgroup limit");
    expect(scopeOfCgroup("/system.slice/slurmstepd.scope/job_4242/step_0")).toBe("step 0");
    expect(
      scopeOfCgroup("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5b1f0e2a_8c1d.slice"),
    ).toBe("the pod's limit");
    expect(
      scopeOfCgroup(
        "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5b1f.slice/cri-containerd-4f1c9a.scope",
      ),
    ).toBe("the container's limit");
    expect(scopeOfCgroup("/user.slice")).toBe("the limit of cgroup /user.slice");
    expect(scopeOfCgroup(undefined)).toBeUndefined();
  });
});
