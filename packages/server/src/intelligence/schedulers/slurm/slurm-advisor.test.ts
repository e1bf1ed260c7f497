import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import type { PolicyAuditRecord } from "../../../data-plane/stores/policy-audit-record.js";
import type { PredictFunction } from "../predict-function.js";
import { SlurmAdvisor, type SlurmAdvisorOptions } from "./slurm-advisor.js";

const GiB = 2 ** 30;

const rec = (resource: ResourcePrediction["resource"], value: number): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "memory"
      ? "bytes"
      : resource === "walltime"
        ? "seconds"
        : resource === "gpus"
          ? "devices"
          : "cores",
  value,
  confidence: 0.96,
  evidence: { group: "user=alice,script=train.sh", jobs: 42 },
});

function setup(resources: ResourcePrediction[], options: Partial<SlurmAdvisorOptions> = {}) {
  const specs: JobSpec[] = [];
  const audit: PolicyAuditRecord[] = [];
  const predict: PredictFunction = async (spec) => {
    specs.push(spec);
    return { modelVersion: "m-3", resources };
  };
  const advisor = new SlurmAdvisor({
    cluster: "hpc1",
    predict,
    policy: { name: "default" },
    audit: { record: async (r) => void audit.push(...r) },
    ...options,
  });
  return { advisor, specs, audit };
}

const lines = (text: string) => text.trimEnd().split("\n");

describe("SlurmAdvisor", () => {
  it("answers the options to set, one message line, and reads the job as SLURM would", async () => {
    const { advisor, specs, audit } = setup([
      rec("memory", 5.5 * GiB),
      rec("walltime", 5100),
      rec("cores", 3),
    ]);
    const advice = await advisor.advise({
      user: "alice",
      options: {
        mem: "16G",
        time: "04:00:00",
        "cpus-per-task": "8",
        partition: "batch",
        account: "physics",
        "job-name": "train",
        script: "/home/alice/train.sh",
      },
    });
    expect(advice.statusCode).toBe(200);
    expect(lines(advice.text)).toEqual([
      "jobsight-advice 1",
      "status=changed",
      "set.cpus-per-task=3",
      "set.mem=5632",
      "set.time=85",
      "message=jobsight: --cpus-per-task 8->3, --mem 16G->5632M, --time 04:00:00->01:25:00, from 42 similar past jobs (model m-3, policy default)",
    ]);
    expect(specs[0]).toEqual({
      cluster: "hpc1",
      scheduler: "slurm",
      user: "alice",
      partition: "batch",
      account: "physics",
      jobName: "train",
      executable: "/home/alice/train.sh",
      requested: { cores: 8, memoryBytes: 16 * GiB, walltimeSeconds: 14400 },
    });
    expect(audit.map((r) => [r.actor, r.resource, r.before, r.after])).toEqual([
      ["slurm-cli-filter", "memory", 16 * GiB, 5.5 * GiB],
      ["slurm-cli-filter", "walltime", 14400, 5100],
      ["slurm-cli-filter", "cores", 8, 3],
    ]);
  });

  it("keeps the form of the request: memory per CPU over the new CPU count, GPUs per node", async () => {
    const { advisor, specs } = setup([rec("memory", 16 * GiB), rec("cores", 8), rec("gpus", 2)]);
    const advice = await advisor.advise({
      source: "job_submit",
      user: "bob",
      options: {
        "mem-per-cpu": "4G",
        ntasks: "4",
        "cpus-per-task": "4",
        nodes: "2",
        gres: "gres/gpu:a100:2,gres/nvme:1",
      },
    });
    expect(specs[0].requested).toEqual({ cores: 16, memoryBytes: 64 * GiB, gpus: 4 });
    expect(lines(advice.text).slice(1, 5)).toEqual([
      "status=changed",
      "set.cpus-per-task=2",
      "set.mem-per-cpu=2048",
      "set.gres=gpu:a100:1,nvme:1",
    ]);
  });

  it("applies the policy and says which rule limited a change", async () => {
    const { advisor } = setup([rec("memory", 1 * GiB), rec("gpus", 1)], {
      policy: { name: "strict", maxDecrease: { memory: 0.5 }, neverLower: ["gpus"] },
    });
    const advice = await advisor.advise({ user: "alice", options: { mem: "8192", gpus: "2" } });
    expect(lines(advice.text).slice(1)).toEqual([
      "status=changed",
      "set.mem=4096",
      "message=jobsight: --mem 8G->4G (limited by max_decrease), from 42 similar past jobs (model m-3, policy strict)",
    ]);
  });

  it("sets nothing when nothing changes, in shadow mode, or for a user who opted out", async () => {
    const same = setup([rec("memory", 8 * GiB)]);
    expect(lines((await same.advisor.advise({ user: "a", options: { mem: "8G" } })).text)).toEqual([
      "jobsight-advice 1",
      "status=unchanged",
    ]);
    const shadow = setup([rec("memory", 2 * GiB)], { mode: "shadow" });
    expect(lines((await shadow.advisor.advise({ user: "a", options: { mem: "8G" } })).text)).toEqual([
      "jobsight-advice 1",
      "status=shadow",
    ]);
    expect(shadow.audit.map((r) => r.mode)).toEqual(["shadow"]);
    const out = setup([rec("memory", 2 * GiB)], { policy: { name: "p", optOutUsers: ["a"] } });
    expect((await out.advisor.advise({ user: "a", options: { mem: "8G" } })).outcome).toBe("unchanged");
  });

  it("reads what a real sbatch (22.05) hands its cli_filter for options not given as not given", async () => {
    const { advisor, specs } = setup([rec("memory", 2 * GiB)]);
    // A script with only --mem=8G: no --time is NO_VAL minutes, no -c is 0, no -N is "1-0".
    const unset = { type: "sbatch", mem: "8G", time: "2982616-04:14:00", "cpus-per-task": "0", nodes: "1-0" };
    await advisor.advise({ user: "a", uid: "0", options: { ...unset, ntasks: "1" } });
    await advisor.advise({ user: "a", options: { ...unset, time: "UNLIMITED" } });
    for (const spec of specs) expect(spec.requested).toEqual({ cores: 1, memoryBytes: 8 * GiB });
  });

  it("fails open: a timeout or a predictor error answers status=error, a bad body 400", async () => {
    const slow = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "p" },
      deadlineMs: 30,
      predict: () => new Promise(() => {}),
    });
    expect(lines((await slow.advise({ user: "a", options: {} })).text)).toEqual([
      "jobsight-advice 1",
      "status=error",
      "reason=timeout",
    ]);
    const broken = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "p" },
      predict: async () => Promise.reject(new Error("x")),
    });
    expect((await broken.advise({ uid: 1000, options: {} })).outcome).toBe("predictor_error");
    for (const body of [null, [], { user: "a" }, { options: {} }, { user: "a", options: "mem=1" }]) {
      const advice = await broken.advise(body);
      expect(advice.statusCode).toBe(400);
      expect(lines(advice.text)[1]).toBe("status=error");
    }
    expect(broken.stats()).toEqual({ predictor_error: 1, bad_request: 5 });
  });
});
