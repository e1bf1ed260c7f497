import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { JobRecord, UsageSample } from "@jobsight/schemas";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { migrate } from "../../../src/data-plane/storage/migrator.js";
import { createDataPlaneStorage, type DataPlaneStorage } from "../../../src/data-plane/storage/storage.js";
import { storageHeartbeatCounts } from "../../../src/data-plane/stores/storage-heartbeat-counts.js";
import { HeartbeatClient } from "../../../src/platform/licence/heartbeat.js";

// The heartbeat from a real, filled store: recognisable users, job ids, scripts, paths, node
// names and metric values go in through the data plane; the captured heartbeat holds none.

const USERS = ["zelda-quokka", "yannick-okapi", "xavier-pangolin"];
const NODES = ["gpu-quokka-17", "gpu-okapi-42"];
const PEAK_MEMORY = 987_654_321_987;
const CPU_SECONDS = 31_415.926_535;

function job(i: number, now: Date): JobRecord {
  const user = USERS[i % USERS.length];
  return {
    cluster: i % 2 === 0 ? "hpc-quokka" : "k8s-okapi",
    jobId: `job-7712398${i}`,
    phase: "ended",
    source: "slurm-controller",
    spec: {
      cluster: i % 2 === 0 ? "hpc-quokka" : "k8s-okapi",
      scheduler: "slurm",
      user,
      account: `acct-${user}`,
      partition: "gpu",
      jobName: `secret-experiment-${user}`,
      executable: `/home/${user}/projects/okapi-genome/train_secret.py`,
      requested: { memoryBytes: 68_719_476_736, cores: 8, walltimeSeconds: 14_400 },
      submitTime: new Date(now.getTime() - 3_600_000).toISOString(),
    },
    submittedAt: new Date(now.getTime() - 3_600_000).toISOString(),
    startedAt: new Date(now.getTime() - 3_000_000).toISOString(),
    endedAt: new Date(now.getTime() - 60_000).toISOString(),
    outcome: { state: "OUT_OF_MEMORY", reason: `OOM in /scratch/${user}/data.h5` },
    nodes: [NODES[i % NODES.length]],
    peaks: { memoryBytes: PEAK_MEMORY, runTimeSeconds: 2_940 },
  } as JobRecord;
}

function sample(i: number, now: Date): UsageSample {
  return {
    cluster: i % 2 === 0 ? "hpc-quokka" : "k8s-okapi",
    jobId: `job-7712398${i}`,
    node: NODES[i % NODES.length],
    time: new Date(now.getTime() - 600_000 + i * 1000).toISOString(),
    memory: { currentBytes: PEAK_MEMORY, peakBytes: PEAK_MEMORY },
    cpu: { usageSeconds: CPU_SECONDS },
  } as UsageSample;
}

describe("heartbeat from the real store", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let storage: DataPlaneStorage;
  let server: Server;
  let url: string;
  const bodies: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("heartbeat");
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    const { flavour } = await migrate(pool, { timescale: "off" });
    storage = createDataPlaneStorage(pool, flavour, { retentionDays: 30, compressAfterDays: 7 });
    const now = new Date();
    await storage.clusters.register({ id: "hpc-quokka", name: `Cluster of ${USERS[0]}`, scheduler: "slurm" });
    await storage.clusters.register({ id: "k8s-okapi", name: "Okapi", scheduler: "kubernetes" });
    const jobs = Array.from({ length: 7 }, (_, i) => job(i, now));
    const upserted = await storage.jobs.upsert(jobs);
    expect(upserted.accepted).toBe(7);
    const inserted = await storage.samples.insert(Array.from({ length: 7 }, (_, i) => sample(i, now)));
    expect(inserted.accepted).toBe(7);

    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        bodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/heartbeat`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await pool?.end();
    await db?.drop();
  });

  it("sends the counts and nothing of the jobs", async () => {
    const client = new HeartbeatClient(
      {
        versions: () => ({ server: "0.1.0", schemas: "0.1.0", node: process.versions.node }),
        health: () => "ok",
        licence: () => ({ id: "L-2026-0001", status: "valid" }),
        counts: storageHeartbeatCounts(pool, { predictionsPerDay: async () => 3 }),
      },
      { url },
    );
    expect(await client.beatOnce()).toEqual({ result: "sent", status: 204 });
    const body = bodies[0];
    expect(JSON.parse(body).counts).toEqual({ nodes: 2, clusters: 2, jobsPerDay: 7, predictionsPerDay: 3 });

    const page = await storage.jobs.list({ limit: 100 });
    const series = await Promise.all(page.items.map((j) => storage.samples.series(j.cluster, j.jobId)));
    const stored = JSON.stringify([page, series]);
    const forbidden = [
      ...USERS,
      ...NODES,
      "hpc-quokka",
      "k8s-okapi",
      "job-7712398",
      "train_secret",
      "okapi-genome",
      "secret-experiment",
      "/scratch/",
      "acct-",
      String(PEAK_MEMORY),
      "31415",
      "68719476736",
    ];
    for (const value of forbidden) {
      expect(stored, `${value} is in the store`).toContain(value.replace(/^\//, ""));
      expect(body, `${value} reached the heartbeat`).not.toContain(value);
    }
  });
});
