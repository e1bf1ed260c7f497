import type { ContainerOnlySample } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PreparedSamples } from "../copy/prepared-samples.js";
import { IngestGate } from "../ingest-gate.js";
import type { ContainerJob } from "../queries/jobs-by-container.js";
import type { SampleStore } from "../stores/sample-store.js";
import { attributeContainerSamples, attributeContainersFromStore } from "./container-attribution.js";
import { OtlpIngest } from "./otlp-ingest.js";

const A = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const B = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";
const C = "fd61a03af4f77d870fc21e05e7e80678095c92d808cfb3b5c279ee04c74aca13";
const D = "a4e624d686e03ed2767c0abd85c14426b0b1157d2ce81d27bb4fe4f6f01d688a";

const job = (jobId: string, containerId: string, nodes = ["gpu07"]): ContainerJob => ({
  jobId,
  user: `u${jobId.split("/")[1]}`,
  containerId,
  nodes,
});

const reading = (containerId: string, node = "", user?: string): ContainerOnlySample => ({
  sample: {
    cluster: "k8s1",
    jobId: "",
    node,
    time: "2026-12-01T10:05:00.000Z",
    memory: { currentBytes: 5 },
    ...(user ? { user } : {}),
  },
  containerId,
  metrics: { "container.memory.usage": 1, "container.cpu.time": 1 },
});

describe("attributeContainerSamples", () => {
  it("gives each sample the job whose record lists its container, that job's user and node", () => {
    const { samples, skipped } = attributeContainerSamples(
      [reading(A), reading(A, "gpu09", "mallory"), reading(B)],
      [job("ml/train-0", A), job("ml/eval-1", B, ["gpu08"])],
    );
    expect(samples.map((s) => [s.jobId, s.node, s.user])).toEqual([
      ["ml/train-0", "gpu07", "utrain-0"],
      // The reading's node is kept; its user never is: the record says whose the container is.
      ["ml/train-0", "gpu09", "utrain-0"],
      ["ml/eval-1", "gpu08", "ueval-1"],
    ]);
    expect(skipped).toEqual([]);
  });

  it("skips as container_unmapped a container no record lists, two records list, or with no node", () => {
    const { samples, skipped } = attributeContainerSamples(
      [reading(A), reading(B), reading(C), reading(D, "gpu07")],
      [job("ml/a", A), job("ml/b", B), job("ml/b2", B), job("ml/c", C, []), job("ml/a", A)],
    );
    expect(samples.map((s) => [s.jobId, s.node])).toEqual([["ml/a", "gpu07"]]);
    const twice = [
      { reason: "container_unmapped", metric: "container.memory.usage", points: 1 },
      { reason: "container_unmapped", metric: "container.cpu.time", points: 1 },
    ];
    expect(skipped).toEqual([...twice, ...twice, ...twice]);
  });

  it("asks the store once, for each container once", async () => {
    const withContainers = vi.fn(async () => [job("ml/a", A)]);
    const { samples } = await attributeContainersFromStore({ withContainers }, "k8s1", [
      reading(A),
      reading(B),
      reading(A),
    ]);
    expect(withContainers).toHaveBeenCalledTimes(1);
    expect(withContainers).toHaveBeenCalledWith("k8s1", [A, B]);
    expect(samples).toHaveLength(2);
    expect(await attributeContainersFromStore({ withContainers }, "k8s1", [])).toEqual({
      samples: [],
      skipped: [],
    });
    expect(withContainers).toHaveBeenCalledTimes(1);
  });
});

describe("OtlpIngest with job records", () => {
  const ingests: OtlpIngest[] = [];
  afterEach(async () => {
    for (const ingest of ingests.splice(0)) await ingest.close();
  });
  const collector = { role: "collector" as const, user: "svc", cluster: "k8s1", tokenId: "t1", via: "test" };
  const resource = (containerId: string) => ({
    resource: { attributes: [{ key: "container.id", value: { stringValue: containerId } }] },
    scopeMetrics: [
      {
        metrics: [
          {
            name: "container.memory.usage",
            unit: "By",
            gauge: { dataPoints: [{ timeUnixNano: "1796119500000000000", asInt: "4096" }] },
          },
        ],
      },
    ],
  });
  const body = new TextEncoder().encode(
    JSON.stringify({ resourceMetrics: [resource(`containerd://${A}`), resource(B)] }),
  );

  it.each([0, 1])(
    "stores a container-only reading under its pod's job, and skips an unknown container (%i decode threads)",
    async (threads) => {
      const inserted: UsageSample[] = [];
      const samples = {
        flavour: "plain",
        insertPrepared: vi.fn(async (b: PreparedSamples) => ({ accepted: b.count, duplicates: 0 })),
        insert: vi.fn(async (s: UsageSample[]) => {
          inserted.push(...s);
          return { accepted: s.length, duplicates: 0 };
        }),
      } as unknown as SampleStore;
      const withContainers = vi.fn(async () => [job("ml/train-0", A)]);
      const onNodes = vi.fn(async () => []);
      const ingest = new OtlpIngest({
        storage: { samples },
        jobs: { onNodes, withContainers },
        verifiers: [],
        ingestGate: new IngestGate(4),
        decodeThreads: threads,
      });
      ingests.push(ingest);
      const outcome = await ingest.export(collector, (options) => ingest.decode(body, "json", options));
      expect(withContainers).toHaveBeenCalledWith("k8s1", [A, B]);
      expect(onNodes).not.toHaveBeenCalled();
      expect(outcome).toMatchObject({ accepted: 1, rejected: 0, skipped: 1 });
      expect(inserted).toEqual([
        {
          cluster: "k8s1",
          jobId: "ml/train-0",
          node: "gpu07",
          user: "utrain-0",
          time: "2026-12-01T10:05:00.000Z",
          memory: { currentBytes: 4096 },
        },
      ]);
    },
  );
});
