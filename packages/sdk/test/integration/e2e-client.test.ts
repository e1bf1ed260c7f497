import { type JobRecord, validators } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  createClient,
  type JobsightClient,
  NotFoundError,
  PermissionError,
  ServerError,
} from "../../src/index.js";
import { endedJobHistory, slurmTrainSpec } from "./e2e-job-history.js";
import { E2E_TOKENS, type RealServer, startRealServer } from "./e2e-real-server.js";

const GiB = 2 ** 30;
const history = endedJobHistory();
const aliceJobs = history.filter((r) => r.spec.user === "alice");
const bobJob = history.find((r) => r.spec.user === "bob")!;
const aliceSpec = slurmTrainSpec("alice");

/** Asserts that `promise` rejects with an instance of `type`, and returns the error. */
async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe("the SDK against the real server", () => {
  let server: RealServer;
  let clientOf: (token: string | undefined) => JobsightClient;

  beforeAll(async () => {
    server = await startRealServer({ prefix: "sdk_e2e" });
    clientOf = (token) => createClient({ baseUrl: server.url, token, retries: 0, timeoutMs: 20_000 });
    const result = await clientOf(E2E_TOKENS.collector).jobs.ingest(history, { batchSize: 64 });
    expect(result).toEqual({ accepted: history.length, duplicates: 0 });
    // The intelligence plane learns from what the data plane stored through the SDK.
    await server.service!.refresh();
    const report = await server.service!.train();
    expect(report.accepted).toBe(true);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("reads health without a token", async () => {
    const health = await clientOf(undefined).health();
    expect(health.status).toBe("ok");
    expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("stores a resent batch once", async () => {
    const again = await clientOf(E2E_TOKENS.collector).jobs.ingest(history.slice(0, 10));
    expect(again).toEqual({ accepted: 0, duplicates: 10 });
  });

  it("lists a researcher's own jobs page by page, newest first", async () => {
    const alice = clientOf(E2E_TOKENS.alice);
    const pageSizes: number[] = [];
    for await (const page of alice.jobs.list({ cluster: "hpc1", limit: 25 }).pages()) {
      pageSizes.push(page.items.length);
    }
    expect(pageSizes).toEqual([25, 25, 10]);

    const listed: JobRecord[] = [];
    for await (const job of alice.jobs.list({ cluster: "hpc1", limit: 40 })) listed.push(job);
    expect(listed.map((j) => j.jobId).sort()).toEqual(aliceJobs.map((j) => j.jobId).sort());
    expect(new Set(listed.map((j) => j.spec.user))).toEqual(new Set(["alice"]));
    const submitted = listed.map((j) => Date.parse(j.submittedAt));
    expect(submitted).toEqual([...submitted].sort((a, b) => b - a));

    const firstFive = await alice.jobs.list({ limit: 2 }).toArray(5);
    expect(firstFive.map((j) => j.jobId)).toEqual(listed.slice(0, 5).map((j) => j.jobId));
  });

  it("gets one job as it was ingested", async () => {
    const job = await clientOf(E2E_TOKENS.alice).jobs.get(aliceJobs[3].jobId, { cluster: "hpc1" });
    expect(job).toMatchObject({
      cluster: "hpc1",
      jobId: aliceJobs[3].jobId,
      phase: "ended",
      spec: aliceJobs[3].spec,
      outcome: aliceJobs[3].outcome,
      peaks: aliceJobs[3].peaks,
    });
    expect(Date.parse(job.endedAt!)).toBe(Date.parse(aliceJobs[3].endedAt!));
  });

  it("names every offending field of a refused batch", async () => {
    const broken = { ...history[0], jobId: "bad-1", submittedAt: "yesterday", peaks: { memoryBytes: -1 } };
    const error = await rejection(
      clientOf(E2E_TOKENS.collector).jobs.ingest([broken as JobRecord]),
      BadRequestError,
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.fields.map((f) => f.path).sort()).toEqual([
      "/records/0/peaks/memoryBytes",
      "/records/0/submittedAt",
    ]);
    const query = await rejection(
      clientOf(E2E_TOKENS.alice).jobs.list({ limit: 5000 }).toArray(),
      BadRequestError,
    );
    // Query parameters are named under /query, body fields from the body's root.
    expect(query.fields.map((f) => f.path)).toEqual(["/query/limit"]);
  });

  it("maps a missing or unknown token to AuthenticationError", async () => {
    const none = await rejection(clientOf(undefined).jobs.get(aliceJobs[0].jobId), AuthenticationError);
    expect(none.status).toBe(401);
    const wrong = await rejection(
      clientOf("not-a-token-of-this-site").jobs.list().toArray(),
      AuthenticationError,
    );
    expect(wrong.code).toBe("AUTHENTICATION_FAILED");
  });

  it("maps a role that may not call a route to PermissionError", async () => {
    const ingest = await rejection(clientOf(E2E_TOKENS.alice).jobs.ingest([history[0]]), PermissionError);
    expect(ingest.status).toBe(403);
    await rejection(clientOf(E2E_TOKENS.collector).jobs.get(aliceJobs[0].jobId), PermissionError);
    await rejection(clientOf(E2E_TOKENS.alice).accuracy.get(), PermissionError);
  });

  it("hides another researcher's job as not found (the server's design, not a 403)", async () => {
    const alice = clientOf(E2E_TOKENS.alice);
    const error = await rejection(alice.jobs.get(bobJob.jobId, { cluster: "hpc1" }), NotFoundError);
    expect(error.status).toBe(404);
    expect(error.apiCode).toBe("NOT_FOUND");
    await rejection(alice.diagnoses.get(bobJob.jobId, { cluster: "hpc1" }), NotFoundError);
    // The platform role sees every job, so the job does exist.
    expect((await clientOf(E2E_TOKENS.platform).jobs.get(bobJob.jobId)).spec.user).toBe("bob");
  });

  it("predicts from the site's own history, and reads the prediction back", async () => {
    const alice = clientOf(E2E_TOKENS.alice);
    const prediction = await alice.predictions.create({ spec: aliceSpec });
    expect(prediction).toMatchObject({ mode: "live", cluster: "hpc1", user: "alice" });
    expect(prediction.modelVersion).toBe(server.service!.activeVersion);
    const memory = prediction.resources.find((r) => r.resource === "memory");
    if (memory?.status !== "ok") throw new Error(`no memory recommendation: ${JSON.stringify(memory)}`);
    const peaks = aliceJobs.map((j) => j.peaks!.memoryBytes!);
    // Above what alice's jobs used, far below the 64 GiB they asked for.
    expect(memory.value).toBeGreaterThanOrEqual(Math.min(...peaks));
    expect(memory.value).toBeLessThan(32 * GiB);
    expect(memory.evidence.jobs).toBeGreaterThan(0);
    const gpus = prediction.resources.find((r) => r.resource === "gpus");
    expect(gpus).toMatchObject({ status: "insufficient_evidence", reasonCode: "not_requested" });

    await server.service!.flush();
    expect(await alice.predictions.get(prediction.id)).toEqual(prediction);
    await rejection(clientOf(E2E_TOKENS.bob).predictions.get(prediction.id), NotFoundError);
  });

  it("predicts a batch in order, and refuses to predict for someone else", async () => {
    const alice = clientOf(E2E_TOKENS.alice);
    const noHistory = { ...aliceSpec, executable: "never-seen.py", jobName: "other" };
    const { predictions } = await alice.predictions.createBatch([{ spec: aliceSpec }, { spec: noHistory }]);
    expect(predictions).toHaveLength(2);
    expect(predictions[0].resources.some((r) => r.status === "ok")).toBe(true);
    expect(predictions.every((p) => validators.Prediction.check(p))).toBe(true);

    const error = await rejection(
      alice.predictions.create({ spec: { ...aliceSpec, user: "bob" } }),
      PermissionError,
    );
    expect(error.body?.errors?.map((f) => f.path)).toEqual(["/spec/user"]);
  });

  it("diagnoses a job as JSON and as Markdown", async () => {
    const alice = clientOf(E2E_TOKENS.alice);
    const diagnosis = await alice.diagnoses.get(aliceJobs[0].jobId, { cluster: "hpc1" });
    expect(diagnosis.jobId).toBe(aliceJobs[0].jobId);
    expect(diagnosis.findings.map((f) => f.kind)).toContain("memory_overrequested");
    const markdown = await alice.diagnoses.get(aliceJobs[0].jobId, { cluster: "hpc1", format: "markdown" });
    expect(markdown).toMatch(new RegExp(`^# Diagnosis of job ${aliceJobs[0].jobId} on hpc1`));
    expect(markdown).toContain("Memory over-requested");
  });

  it("lists live alerts: a researcher's own jobs', every job's for the platform team", async () => {
    await server.storage.alerts.fire(
      [
        {
          cluster: "hpc1",
          jobId: aliceJobs[0].jobId,
          user: "alice",
          rule: "memory-near-limit",
          severity: "critical",
          message: "Memory at 95% of its limit and rising.",
          evidence: [
            { kind: "metric", source: "cgroup:memory.current", text: "memory rose to 95% of its limit" },
          ],
          projectedAt: "2026-12-02T10:20:00.000Z",
        },
      ],
      new Date(),
    );
    const mine = await clientOf(E2E_TOKENS.alice).alerts.list({ state: "firing" });
    expect(mine.map((a) => [a.jobId, a.rule, a.projectedAt])).toEqual([
      [aliceJobs[0].jobId, "memory-near-limit", "2026-12-02T10:20:00.000Z"],
    ]);
    expect(await clientOf(E2E_TOKENS.bob).alerts.list()).toEqual([]);
    expect((await clientOf(E2E_TOKENS.platform).alerts.list({ user: "alice" })).map((a) => a.id)).toEqual([
      mine[0].id,
    ]);
    await rejection(clientOf(E2E_TOKENS.collector).alerts.list(), PermissionError);
  });

  it("reports accuracy to the platform team", async () => {
    const report = await clientOf(E2E_TOKENS.platform).accuracy.get();
    expect(validators.AccuracyReport.check(report)).toBe(true);
  });

  it("reads, replaces and simulates the policy, and refuses a policy whose caps and floors cross", async () => {
    const platform = clientOf(E2E_TOKENS.platform);
    expect((await platform.policy.get()).name).toBe("default");
    const put = await platform.policy.put({ name: "gentle", maxDecrease: { memory: 0.25 } });
    expect(put).toMatchObject({ name: "gentle", maxDecrease: { memory: 0.25 } });
    expect((await clientOf(E2E_TOKENS.scheduler).policy.get()).name).toBe("gentle");
    await rejection(clientOf(E2E_TOKENS.alice).policy.put({ name: "mine" }), PermissionError);

    // Predictions recorded by the tests above are what the simulation replays.
    await server.service!.flush();
    const sim = await platform.policy.simulate({ policy: { name: "hands-off", leaveAlone: ["memory"] } });
    expect(validators.PolicySimulation.check(sim)).toBe(true);
    expect(sim.jobs).toBeGreaterThan(0);
    const memory = sim.resources.find((r) => r.resource === "memory");
    expect(memory?.changed).toBe(0);

    const crossed = await rejection(
      platform.policy.simulate({
        policy: { name: "x", floors: { memory: 8 * GiB }, caps: { memory: 4 * GiB } },
      }),
      BadRequestError,
    );
    expect(crossed.fields.map((e) => e.path)).toContain("/policy/floors/memory");
    await platform.policy.put({ name: "default" });
  });

  it("pages through the policy audit, and keeps it from researchers", async () => {
    const pages = clientOf(E2E_TOKENS.platform).policy.audit({ cluster: "hpc1", limit: 5 }).pages();
    const first = await pages.next();
    expect(first.done).toBe(false);
    expect(validators.PolicyAuditPage.check(first.value)).toBe(true);
    await rejection(clientOf(E2E_TOKENS.alice).policy.audit().toArray(), PermissionError);
  });
});

describe("the SDK against a data-plane-only server", () => {
  let server: RealServer;

  beforeAll(async () => {
    server = await startRealServer({ prefix: "sdk_e2e_dp", intelligence: false });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("maps 501 to ServerError and does not retry it", async () => {
    let attempts = 0;
    const counting: typeof fetch = (input, init) => {
      attempts++;
      return fetch(input, init);
    };
    const client = createClient({
      baseUrl: server.url,
      token: E2E_TOKENS.alice,
      fetch: counting,
      retries: 3,
      retryDelayMs: 10,
    });
    const error = await rejection(client.predictions.create({ spec: aliceSpec }), ServerError);
    expect(error).toMatchObject({ status: 501, apiCode: "NOT_IMPLEMENTED", code: "SERVER_ERROR" });
    expect(attempts).toBe(1);
  });
});
