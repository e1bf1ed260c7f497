import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateJobRecord } from "@jobsight/schemas";
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { recordFromPod } from "./kubernetes-records.js";
import { MAX_CONTAINER_IDS, podContainerIds, runtimeContainerId } from "./pod-container-ids.js";

const fixture = (name: string): V1Pod[] =>
  JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "kubernetes", `${name}.json`), "utf8"));

describe("container ids of a pod's record", () => {
  it("lists the init and main containers' runtime ids of a real pod, without the runtime prefix", () => {
    const pods = fixture("pod-init-sidecar-succeeded");
    const record = recordFromPod(pods[pods.length - 1], "k8s1", {
      now: () => Date.parse("2026-12-02T00:00:00Z"),
    });
    expect(record?.containerIds).toEqual([
      "66657463682d6461746166657463682d00000000000000000000000000000000",
      "6c6f672d736869707065726c6f672d7300000000000000000000000000000000",
      "6576616c756174656576616c7561746500000000000000000000000000000000",
      "6d6574726963736d6574726963736d6500000000000000000000000000000000",
    ]);
    expect((validateJobRecord(record) as { errors?: unknown }).errors ?? []).toEqual([]);
  });

  it("records a running pod's container id from a recorded cluster", () => {
    const pods = fixture("recorded-runai-gpu-pod-running");
    const record = recordFromPod(pods[pods.length - 1], "k8s1");
    expect(record?.containerIds).toEqual([
      "1063439dc8e82d20ef89a97ad9567d40d59d0d270ac5b8d4cab7f49a474e4398",
    ]);
  });

  it("leaves the field out while no container has started", () => {
    const pending = structuredClone(fixture("pod-init-sidecar-succeeded")[0]);
    pending.status = { phase: "Pending" };
    expect(recordFromPod(pending, "k8s1")).not.toHaveProperty("containerIds");
  });

  it("keeps a restarted container's previous id and an ephemeral container's, once each", () => {
    const a = "a".repeat(64);
    const b = "b".repeat(64);
    const c = "c".repeat(64);
    const pod = {
      status: {
        containerStatuses: [
          {
            name: "x",
            containerID: `cri-o://${a}`,
            lastState: { terminated: { containerID: `docker://${b}` } },
          },
          { name: "y", containerID: `containerd://${a.toUpperCase()}` },
        ],
        ephemeralContainerStatuses: [{ name: "debug", containerID: `containerd://${c}` }],
      },
    } as unknown as V1Pod;
    expect(podContainerIds(pod)).toEqual([a, b, c]);
  });

  it("ignores ids that are not a runtime's hex id and bounds the list", () => {
    expect(runtimeContainerId("containerd://not-hex")).toBeUndefined();
    expect(runtimeContainerId("")).toBeUndefined();
    expect(runtimeContainerId(undefined)).toBeUndefined();
    const many = Array.from({ length: 300 }, (_, i) => ({
      name: `c${i}`,
      containerID: `containerd://${i.toString(16).padStart(64, "0")}`,
    }));
    expect(podContainerIds({ status: { containerStatuses: many } } as unknown as V1Pod)).toHaveLength(
      MAX_CONTAINER_IDS,
    );
  });
});
