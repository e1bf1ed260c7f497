import type { HostOnlySample } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PreparedSamples } from "../copy/prepared-samples.js";
import { IngestGate } from "../ingest-gate.js";
import type { NodeOccupancy } from "../queries/jobs-on-nodes.js";
import type { SampleStore } from "../stores/sample-store.js";
import { attributeHostSamples, soleJob } from "./host-attribution.js";
import { OtlpIngest } from "./otlp-ingest.js";

const at = (hhmm: string) => Date.parse(`2026-12-01T${hhmm}:00Z`);
const job = (jobId: string, node: string, from: string, to?: string, scheduler = "slurm"): NodeOccupancy => ({
  jobId,
  user: `u${jobId}`,
  node,
  scheduler,
  startedMs: at(from),
  endedMs: to === undefined ? null : at(to),
});

describe("soleJob", () => {
  const jobs = [
    job("1", "cn1", "10:00", "11:00"),
    job("2", "cn1", "11:00"),
    job("3", "cn2", "10:00"),
    job("4", "cn2", "10:30", "10:45"),
    job("5", "k1", "10:00", undefined, "kubernetes"),
  ];

  it("is the one job running on the node then, its start included and its end not", () => {
    expect(soleJob(jobs, "cn1", at("10:00"))).toMatchObject({ jobId: "1" });
    expect(soleJob(jobs, "cn1", at("10:59"))).toMatchObject({ jobId: "1" });
    expect(soleJob(jobs, "cn1", at("11:00"))).toMatchObject({ jobId: "2" });
    expect(soleJob(jobs, "cn2", at("10:50"))).toMatchObject({ jobId: "3" });
  });

  it("is nobody's when no job ran there yet, or several did, or the job is a Kubernetes pod", () => {
    expect(soleJob(jobs, "cn1", at("09:59"))).toBe("no_job_on_node");
    expect(soleJob(jobs, "cn9", at("10:30"))).toBe("no_job_on_node");
    expect(soleJob(jobs, "cn2", at("10:30"))).toBe("node_shared");
    expect(soleJob(jobs, "k1", at("10:30"))).toBe("node_shared");
  });

  it("counts a job listed twice for a node once", () => {
    expect(soleJob([...jobs, job("3", "cn2", "10:00")], "cn2", at("10:10"))).toMatchObject({ jobId: "3" });
  });
});

describe("attributeHostSamples", () => {
  const host = (node: string, time: string, user?: string): HostOnlySample => ({
    sample: {
      cluster: "hpc1",
      jobId: "",
      node,
      time,
      memory: { currentBytes: 5 },
      ...(user ? { user } : {}),
    },
    metrics: { "system.memory.usage": 1, "system.cpu.time": 2 },
  });

  it("gives each sample its job and the job's own user, and counts the rest", () => {
    const jobs = [job("7", "cn1", "10:00"), job("8", "cn2", "10:00"), job("9", "cn2", "10:00")];
    const { samples, skipped } = attributeHostSamples(
      [
        host("cn1", "2026-12-01T10:05:00.000Z"),
        host("cn1", "2026-12-01T10:06:00.000Z", "alice"),
        host("cn2", "2026-12-01T10:05:00.000Z"),
        host("cn3", "2026-12-01T10:05:00.000Z"),
      ],
      jobs,
    );
    expect(samples.map((s) => [s.jobId, s.node, s.user, s.time])).toEqual([
      ["7", "cn1", "u7", "2026-12-01T10:05:00.000Z"],
      ["7", "cn1", "u7", "2026-12-01T10:06:00.000Z"],
    ]);
    expect(skipped).toEqual([
      { reason: "node_shared", metric: "system.memory.usage", points: 1 },
      { reason: "node_shared", metric: "system.cpu.time", points: 2 },
      { reason: "no_job_on_node", metric: "system.memory.usage", points: 1 },
      { reason: "no_job_on_node", metric: "system.cpu.time", points: 2 },
    ]);
  });
});

describe("OtlpIngest with job records", () => {
  const ingests: OtlpIngest[] = [];
  afterEach(async () => {
    for (const ingest of ingests.splice(0)) await ingest.close();
  });
  const collector = { role: "collector" as const, user: "svc", cluster: "hpc1", tokenId: "t1", via: "test" };
  const t = "1796119500000000000"; // 2026-12-01T10:05:00Z
  const body = new TextEncoder().encode(
    JSON.stringify({
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "host.name", value: { stringValue: "cn1" } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: "system.memory.usage",
                  unit: "By",
                  gauge: {
                    dataPoints: [
                      {
                        timeUnixNano: t,
                        asInt: "4096",
                        attributes: [{ key: "system.memory.state", value: { stringValue: "used" } }],
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    }),
  );

  it.each([0, 1])(
    "stores a host-only reading under the node's sole job (%i decode threads)",
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
      const onNodes = vi.fn(async () => [job("7", "cn1", "10:00")]);
      const ingest = new OtlpIngest({
        storage: { samples },
        jobs: { onNodes, withContainers: vi.fn(async () => []) },
        verifiers: [],
        ingestGate: new IngestGate(4),
        decodeThreads: threads,
      });
      ingests.push(ingest);
      const outcome = await ingest.export(collector, (options) => ingest.decode(body, "json", options));
      expect(onNodes).toHaveBeenCalledWith("hpc1", ["cn1"], at("10:05"), at("10:05"));
      expect(outcome).toMatchObject({ accepted: 1, rejected: 0, skipped: 0 });
      expect(inserted).toEqual([
        {
          cluster: "hpc1",
          jobId: "7",
          node: "cn1",
          user: "u7",
          time: "2026-12-01T10:05:00.000Z",
          memory: { currentBytes: 4096 },
        },
      ]);
    },
  );
});
