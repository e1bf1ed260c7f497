import { describe, expect, it } from "vitest";
import { type ActionScope, refusal } from "./action-scope.js";

const everyone: ActionScope = { clusters: [], users: [], accounts: [], partitions: [] };
const job = { cluster: "hpc1", user: "alice", account: "physics", partition: "gpu", scheduler: "slurm" };

describe("refusal (who the policy lets actions touch)", () => {
  it("allows everyone with empty lists, and only those listed otherwise", () => {
    expect(refusal(job, everyone, { name: "default" })).toBeUndefined();
    expect(
      refusal(job, { ...everyone, users: ["alice"], partitions: ["gpu"] }, { name: "p" }),
    ).toBeUndefined();
    expect(refusal(job, { ...everyone, users: ["bob"] }, { name: "p" })).toBe(
      "user alice is not in alerts.actions.users",
    );
    expect(refusal(job, { ...everyone, clusters: ["hpc2"] }, { name: "p" })).toBe(
      "cluster hpc1 is not in alerts.actions.clusters",
    );
    expect(
      refusal({ ...job, account: undefined }, { ...everyone, accounts: ["physics"] }, { name: "p" }),
    ).toBe("account (unknown) is not in alerts.actions.accounts");
  });

  it("never acts on the platform policy's opted-out users or excluded namespaces", () => {
    expect(refusal(job, everyone, { name: "p", optOutUsers: ["alice"] })).toBe(
      "user alice opted out (policy optOutUsers)",
    );
    const pod = { cluster: "k8s", user: "carol", account: "ml", scheduler: "kubernetes" };
    expect(refusal(pod, everyone, { name: "p", namespaces: { exclude: ["ml"] } })).toBe(
      "namespace ml is excluded by the policy",
    );
    expect(refusal(pod, everyone, { name: "p", namespaces: { include: ["research"] } })).toBe(
      "namespace ml is not included by the policy",
    );
    expect(refusal(pod, everyone, { name: "p", namespaces: { include: ["ml"] } })).toBeUndefined();
  });
});
