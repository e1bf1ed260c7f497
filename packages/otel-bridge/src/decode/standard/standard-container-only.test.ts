import { describe, expect, it } from "vitest";
import { counter, decode, gauge, point, request } from "../../../test/standard-requests.js";
import type { Metric, NumberDataPoint } from "../../otlp/otlp-types.js";
import { containerRuntimeId } from "./standard-container-only.js";

const ID = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const OTHER = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

const seconds = (name: string, ...points: NumberDataPoint[]): Metric => counter(name, "s", 2, ...points);

// A runtime's receiver (docker_stats, a cAdvisor bridge) on a Kubernetes node: readings that name
// their container and nothing of its pod; one runtime writes the id as Kubernetes does.
const containers = request(
  [
    { "container.id": ID, "host.name": "gpu07", "user.name": "mallory" },
    [
      seconds("container.cpu.time", point(12.5)),
      gauge("container.memory.usage", "By", point(4096)),
      gauge("container.memory.working_set", "By", point(1024)),
    ],
  ],
  [
    { "container.id": `containerd://${OTHER.toUpperCase()}`, "k8s.container.name": "trainer" },
    [gauge("container.memory.usage", "By", point(77)), gauge("process.memory.usage", "By", point(5))],
  ],
  // Not a runtime id: no record can list it.
  [{ "container.id": "not-hex" }, [gauge("container.memory.usage", "By", point(1))]],
  // A node-wide reading is not a container's, whatever it names.
  [{ "container.id": ID, "host.name": "gpu07" }, [gauge("system.memory.usage", "By", point(9))]],
);

describe("container and process inputs that name only their container.id", () => {
  it("are skipped as container_unmapped without containerOnly, as before", () => {
    const { samples, skipped, containerOnly } = decode(containers, { cluster: "k8s1", hostOnly: true });
    expect(samples).toEqual([]);
    expect(containerOnly).toBeUndefined();
    expect(skipped.byReason).toEqual({
      container_unmapped: {
        "container.cpu.time": 1,
        "container.memory.usage": 3,
        "container.memory.working_set": 1,
        "process.memory.usage": 1,
        "system.memory.usage": 1,
      },
    });
  });

  it("become one container-only sample per container and time, without a user, with containerOnly", () => {
    const { samples, skipped, rejected, containerOnly, hostOnly } = decode(containers, {
      cluster: "k8s1",
      containerOnly: true,
    });
    expect(samples).toEqual([]);
    expect(hostOnly).toBeUndefined();
    expect(rejected.reasons).toEqual({});
    expect(containerOnly).toEqual([
      {
        sample: {
          cluster: "k8s1",
          jobId: "",
          node: "gpu07",
          time: "2026-12-02T16:30:00.000Z",
          memory: { currentBytes: 4096 },
          cpu: { usageSeconds: 12.5 },
        },
        containerId: ID,
        metrics: {
          "container.cpu.time": 1,
          "container.memory.usage": 1,
          "container.memory.working_set": 1,
        },
      },
      {
        // The runtime prefix is stripped and the id lower-cased, as job records list it; the
        // container's name is the step; no node was named (the caller takes the job's).
        sample: {
          cluster: "k8s1",
          jobId: "",
          node: "",
          step: "trainer",
          time: "2026-12-02T16:30:00.000Z",
          memory: { currentBytes: 82 },
        },
        containerId: OTHER,
        metrics: { "container.memory.usage": 1, "process.memory.usage": 1 },
      },
    ]);
    expect(skipped.byReason).toEqual({
      container_unmapped: { "container.memory.usage": 1, "system.memory.usage": 1 },
    });
  });

  it("that also name their pod or job are that job's, containerOnly or not", () => {
    const { samples, containerOnly } = decode(
      request([
        { "container.id": ID, "k8s.pod.uid": "4A5B6C7D-1111-2222-3333-444455556666", "host.name": "gpu07" },
        [gauge("container.memory.usage", "By", point(3))],
      ]),
      { cluster: "k8s1", containerOnly: true },
    );
    expect(samples.map((s) => [s.jobId, s.node, s.memory])).toEqual([
      ["4a5b6c7d-1111-2222-3333-444455556666", "gpu07", { currentBytes: 3 }],
    ]);
    expect(containerOnly).toEqual([]);
  });

  it("of another cluster than the sender's are rejected, not kept", () => {
    const { containerOnly, rejected } = decode(
      request([
        { "container.id": ID, "jobsight.cluster": "k8s2" },
        [gauge("container.memory.usage", "By", point(3))],
      ]),
      { cluster: "k8s1", containerOnly: true },
    );
    expect(containerOnly).toEqual([]);
    expect(rejected.count).toBe(1);
  });
});

describe("containerRuntimeId", () => {
  it("strips a runtime prefix, lower-cases, and refuses what is not 12 to 128 hex digits", () => {
    expect(containerRuntimeId(`containerd://${ID.toUpperCase()}`)).toBe(ID);
    expect(containerRuntimeId(`cri-o://${ID}`)).toBe(ID);
    expect(containerRuntimeId(`docker://${ID}`)).toBe(ID);
    expect(containerRuntimeId(ID.slice(0, 12))).toBe(ID.slice(0, 12));
    expect(containerRuntimeId(ID.slice(0, 11))).toBeUndefined();
    expect(containerRuntimeId("not-hex")).toBeUndefined();
    expect(containerRuntimeId("a".repeat(129))).toBeUndefined();
  });
});
