import type { JobRecord } from "@jobsight/schemas";
import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "./client.js";
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  NotFoundError,
  PermissionError,
  ServerError,
} from "./errors.js";
import { createFakeServer } from "./testing/fake-server.js";

const GiB = 2 ** 30;
const spec = {
  cluster: "hpc1",
  scheduler: "slurm" as const,
  user: "alice",
  executable: "python train.py",
  requested: { memoryBytes: 64 * GiB, cores: 8, walltimeSeconds: 4 * 3600 },
};

function endedJob(i: number, overrides: Partial<JobRecord> = {}): JobRecord {
  const submitted = new Date(Date.UTC(2026, 10, 1) + i * 3_600_000);
  return {
    cluster: "hpc1",
    jobId: String(1000 + i),
    phase: "ended",
    source: "sacct-import",
    spec: { ...spec, submitTime: submitted.toISOString() },
    submittedAt: submitted.toISOString(),
    startedAt: submitted.toISOString(),
    endedAt: new Date(submitted.getTime() + 1_800_000).toISOString(),
    outcome: { state: "COMPLETED", exitCode: 0 },
    peaks: { memoryBytes: (10 + i) * GiB, coresUsed: 5.5, runTimeSeconds: 1800 + i },
    ...overrides,
  };
}

function setup(options: Parameters<typeof createFakeServer>[0] = {}) {
  const fake = createFakeServer(options);
  const client = createClient({
    baseUrl: fake.baseUrl,
    fetch: fake.fetch,
    retryDelayMs: 1,
    maxRetryDelayMs: 2,
  });
  return { fake, client };
}

describe("client against the @jobsight/sdk/testing fake", () => {
  it("answers insufficient_evidence for a user with no history", async () => {
    const { client } = setup();
    const p = await client.predictions.create({ spec });
    expect(validators.Prediction.check(p)).toBe(true);
    const memory = p.resources.find((r) => r.resource === "memory");
    expect(memory).toMatchObject({
      status: "insufficient_evidence",
      reasonCode: "new_user_and_application",
      requested: 64 * GiB,
    });
  });

  it("recommends from the user's past jobs once there are enough", async () => {
    const { client } = setup({ jobs: [endedJob(1), endedJob(2), endedJob(3)] });
    const p = await client.predictions.create({ spec, resources: ["memory", "walltime"] });
    expect(p.resources.map((r) => r.resource)).toEqual(["memory", "walltime"]);
    const memory = p.resources[0];
    if (memory.status !== "ok") throw new Error("expected a recommendation");
    expect(memory.value).toBe(Math.ceil((13 * GiB * 1.2) / 2 ** 20) * 2 ** 20);
    expect(memory.evidence).toMatchObject({ group: "user=alice,executable=python train.py", jobs: 3 });
    expect(await client.predictions.get(p.id)).toEqual(p);
  });

  it("records a prediction once when the same idempotency key is resent", async () => {
    const { fake, client } = setup();
    const a = await client.predictions.create({ spec, idempotencyKey: "job-4242-attempt" });
    const b = await client.predictions.create({ spec, idempotencyKey: "job-4242-attempt" });
    expect(b.id).toBe(a.id);
    expect(fake.store.predictions.size).toBe(1);
  });

  it("retries a prediction through injected 503s and dropped connections", async () => {
    const { fake, client } = setup();
    fake.failNext({ operationId: "createPrediction", status: 503, headers: { "retry-after": "0" } });
    fake.failNext({ operationId: "createPrediction", network: true });
    const p = await client.predictions.create({ spec });
    expect(p.id).toBe("p_000001");
    const sent = fake.requests.filter((r) => r.operationId === "createPrediction");
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.headers["idempotency-key"])).size).toBe(1);
  });

  it("gives up with ServerError when every attempt fails", async () => {
    const { fake, client } = setup();
    fake.failNext({ status: 500, times: 5 });
    await expect(client.accuracy.get()).rejects.toBeInstanceOf(ServerError);
    expect(fake.requests).toHaveLength(3);
  });

  it("keeps batch answers in request order", async () => {
    const { client } = setup();
    const users = ["u1", "u2", "u3"];
    const batch = await client.predictions.createBatch(users.map((user) => ({ spec: { ...spec, user } })));
    expect(batch.predictions.map((p) => p.user)).toEqual(users);
  });

  it("returns no recommendation in shadow mode", async () => {
    const { client } = setup({
      mode: "shadow",
      shadowUntil: "2027-01-01T00:00:00Z",
      jobs: [endedJob(1), endedJob(2), endedJob(3)],
    });
    const p = await client.predictions.create({ spec });
    expect(p).toMatchObject({ mode: "shadow", resources: [], shadowUntil: "2027-01-01T00:00:00Z" });
    const report = await client.accuracy.get();
    expect(report.slices.find((s) => s.resource === "memory")).toMatchObject({
      predicted: 1,
      recommended: 1,
    });
  });

  it("refuses an invalid request with the field list", async () => {
    const { client } = setup();
    const bad = { ...spec, user: "", requested: { cores: 0 } };
    const error = await client.predictions.create({ spec: bad }).catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      "/spec/requested/cores",
      "/spec/user",
    ]);
  });

  it("enforces tokens and roles", async () => {
    const fake = createFakeServer({ tokens: { r: ["researcher"], p: ["platform"] } });
    const as = (token?: string) => createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, token });
    await expect(as().predictions.create({ spec })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(as("wrong").jobs.get("1")).rejects.toBeInstanceOf(AuthenticationError);
    await expect(as("r").accuracy.get()).rejects.toBeInstanceOf(PermissionError);
    expect((await as("p").accuracy.get()).mode).toBe("live");
    expect((await as().health()).status).toBe("ok");
  });

  it("lists jobs newest first across cursor pages, fetching pages lazily", async () => {
    const jobs = Array.from({ length: 250 }, (_, i) => endedJob(i));
    const { fake, client } = setup({ jobs });
    const seen: string[] = [];
    for await (const job of client.jobs.list({ limit: 100 })) seen.push(job.jobId);
    expect(seen).toHaveLength(250);
    expect(seen[0]).toBe("1249");
    expect(seen.at(-1)).toBe("1000");
    expect(fake.requests.map((r) => r.query.cursor)).toEqual([undefined, "o100", "o200"]);

    fake.requests.length = 0;
    const firstFive = await client.jobs.list({ limit: 100, user: "alice" }).toArray(5);
    expect(firstFive).toHaveLength(5);
    expect(fake.requests).toHaveLength(1);

    const pages = [];
    for await (const page of client.jobs.list({ limit: 100 }).pages()) pages.push(page.items.length);
    expect(pages).toEqual([100, 100, 50]);
  });

  it("ingests records in batches and reports duplicates on resend", async () => {
    const { fake, client } = setup();
    const records = Array.from({ length: 25 }, (_, i) => endedJob(i));
    const progress: number[] = [];
    const first = await client.jobs.ingest(records, {
      batchSize: 10,
      onBatch: (sent) => progress.push(sent),
    });
    expect(first).toEqual({ accepted: 25, duplicates: 0 });
    expect(progress).toEqual([10, 20, 25]);
    expect(fake.requests.filter((r) => r.operationId === "ingestJobRecords")).toHaveLength(3);
    expect(await client.jobs.ingest(records)).toEqual({ accepted: 0, duplicates: 25 });
    expect((await client.jobs.get("1003", { cluster: "hpc1" })).peaks?.memoryBytes).toBe(13 * GiB);
  });

  it("reports the records a server refused of each batch by their index in the records sent", async () => {
    const records = Array.from({ length: 5 }, (_, i) => endedJob(i));
    const bodies: { records: JobRecord[] }[] = [];
    // A server that stores every record but those of job 1003, as the data plane refuses invalid ones.
    const partial: typeof fetch = async (_url, init) => {
      const body = JSON.parse(String(init?.body)) as { records: JobRecord[] };
      bodies.push(body);
      const rejected = body.records.flatMap((r, index) =>
        r.jobId === "1003"
          ? [
              {
                index,
                path: `/records/${index}/peaks/memoryBytes`,
                message: "too big",
                code: "VALIDATION_FAILED",
              },
            ]
          : [],
      );
      const answer = {
        accepted: body.records.length - rejected.length,
        duplicates: 0,
        ...(rejected.length ? { rejected } : {}),
      };
      return new Response(JSON.stringify(answer), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    };
    const client = createClient({ baseUrl: "http://jobsight.test", fetch: partial, retryDelayMs: 1 });
    const seen: unknown[] = [];
    const result = await client.jobs.ingest(records, {
      batchSize: 2,
      onBatch: (_s, _t, r) => seen.push(r.rejected),
    });
    expect(bodies).toHaveLength(3);
    expect(result).toEqual({
      accepted: 4,
      duplicates: 0,
      rejected: [
        { index: 3, path: "/records/3/peaks/memoryBytes", message: "too big", code: "VALIDATION_FAILED" },
      ],
    });
    // Each batch's own answer keeps the batch's indexes.
    expect(seen).toEqual([
      undefined,
      [expect.objectContaining({ index: 1, path: "/records/1/peaks/memoryBytes" })],
      undefined,
    ]);
  });

  it("diagnoses a job as JSON and as Markdown", async () => {
    const oom = endedJob(7, { outcome: { state: "OUT_OF_MEMORY", signal: 9 } });
    const { client } = setup({ jobs: [oom] });
    const d = await client.diagnoses.get("1007");
    expect(d.findings[0]).toMatchObject({ kind: "oom_kill", severity: "error" });
    const md = await client.diagnoses.get("1007", { format: "markdown" });
    expect(md).toContain("# Job 1007 on hpc1");
    expect(md).toContain("`oom_kill`");
    await expect(client.diagnoses.get("nope")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("fails like an unreachable host for another origin", async () => {
    const fake = createFakeServer();
    const client = createClient({ baseUrl: "http://elsewhere.test", fetch: fake.fetch, retries: 0 });
    await expect(client.health()).rejects.toBeInstanceOf(ConnectionError);
  });

  it("refuses a base URL that is not http(s)", () => {
    expect(() => createClient({ baseUrl: "jobsight.example.org" })).toThrow(/baseUrl/);
  });
});

describe("client.policy against the fake", () => {
  it("replaces the policy, reads it back, and simulates another on recorded predictions", async () => {
    const { fake, client } = setup();
    for (let i = 0; i < 12; i++) fake.store.putJob(endedJob(i));
    await client.predictions.create({ spec });
    await client.policy.put({ name: "gentle", maxDecrease: { memory: 0.3 } });
    expect(await client.policy.get()).toEqual({ name: "gentle", maxDecrease: { memory: 0.3 } });
    const sim = await client.policy.simulate({ policy: { name: "hands-off", leaveAlone: ["memory"] } });
    expect(validators.PolicySimulation.check(sim)).toBe(true);
    expect(sim.jobs).toBe(1);
    const memory = sim.resources.find((r) => r.resource === "memory");
    expect(memory?.changed).toBe(0);
  });

  it("pages through the audit newest first", async () => {
    const { fake, client } = setup();
    for (let i = 0; i < 7; i++) {
      fake.store.policyAudit.push({
        recordedAt: new Date(Date.UTC(2026, 11, 1, i)).toISOString(),
        cluster: "hpc1",
        actor: "slurm-cli-filter",
        user: "alice",
        job: `job-${i}`,
        resource: "memory",
        before: 16 * GiB,
        after: 8 * GiB,
        modelVersion: "m-1",
        policy: "default",
        limitedBy: null,
        adjustments: [],
        mode: "live",
      });
    }
    const seen = await client.policy.audit({ cluster: "hpc1", limit: 3 }).toArray();
    expect(seen.map((r) => r.job)).toEqual(["job-6", "job-5", "job-4", "job-3", "job-2", "job-1", "job-0"]);
  });
});
