// Actions under policy over the real database: the gpus-idle alert as the warning, the grace
// period, the audit log through GET /v1/alerts/actions, the policy's exclusions; and the two
// history rules (repeated-oom, walltime-overrun) judged from ingested records and samples.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AlertActionList, compileValidator, type JobRecord, type UsageSample } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { savePolicy } from "../../src/data-plane/stores/policy-store.js";
import { AlertActions } from "../../src/intelligence/alerts/actions/alert-actions.js";
import { KubernetesPodDeleter } from "../../src/intelligence/alerts/actions/kubernetes-pod-deleter.js";
import { ScancelCanceller } from "../../src/intelligence/alerts/actions/scancel-canceller.js";
import { SubmissionHold } from "../../src/intelligence/alerts/actions/submission-hold.js";
import { AlertMonitor } from "../../src/intelligence/alerts/alert-monitor.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS } from "./test-server-config.js";

const { alice, bob, platform } = PRINCIPALS;
const hpc = collectorPrincipal("hpc1");
const k8s = collectorPrincipal("k1");
const GiB = 2 ** 30;
const validList = compileValidator(AlertActionList);

const NOW = Date.now();
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();

function record(cluster: string, jobId: string, user: string, extra: Partial<JobRecord> = {}): JobRecord {
  const scheduler = cluster === "k1" ? "kubernetes" : "slurm";
  return {
    cluster,
    jobId,
    phase: "started",
    source: cluster === "k1" ? "kubernetes" : "slurm-controller",
    spec: {
      cluster,
      scheduler,
      user,
      account: "physics",
      requested: { cores: 4, gpus: 1, memoryBytes: 16 * GiB },
    },
    submittedAt: minutesAgo(60),
    startedAt: minutesAgo(50),
    ...extra,
  };
}

/** A job's GPU at 1% for the last 40 minutes. */
const idleGpu = (cluster: string, jobId: string): UsageSample[] =>
  Array.from({ length: 41 }, (_, i) => ({
    cluster,
    jobId,
    node: "gpu-01",
    time: minutesAgo(40 - i),
    gpus: [{ index: 0, utilizationPercent: 1, memoryUsedBytes: GiB }],
  }));

describe("actions under policy, and the history rules, over the database", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let apiServer: Server;
  const deleted: string[] = [];

  const get = async (who: { token: string }, url: string) => {
    const res = await app.inject({ method: "GET", url, headers: bearer(who.token) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(validList.validate(body).ok).toBe(true);
    return body as AlertActionList;
  };
  const send = async (method: "POST", url: string, payload: unknown, token: string) => {
    const res = await app.inject({ method, url, payload: payload as object, headers: bearer(token) });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };
  /** One evaluation at `minutesLater` after the samples' clock, then the actions. */
  const evaluateAt = (minutesLater: number, actions?: AlertActions) =>
    new AlertMonitor({
      storage: fx.storage,
      now: () => new Date(NOW + minutesLater * 60_000),
      ...(actions ? { actions } : {}),
    }).evaluate();

  beforeAll(async () => {
    fx = await openTestStorage("alert_actions");
    objects = await mkdtemp(join(tmpdir(), "jobsight-actions-"));
    await writeFile(join(objects, "sa-token"), "sa-token\n");
    // The Kubernetes API server's delete-pod answer (the deleted Pod).
    apiServer = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        deleted.push(`${req.method} ${req.url} ${req.headers.authorization}`);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Pod", apiVersion: "v1", metadata: { name: "x" } }));
      });
    });
    await new Promise<void>((resolve) => apiServer.listen(0, "127.0.0.1", resolve));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { enabled: false },
      http: { logLevel: "silent" },
      auth: { tokens: [alice, bob, platform, hpc, k8s] },
      alerts: { enabled: false },
    });
    app = await buildApp({ config, storage: fx.storage });
    await send("POST", "/v1/clusters", { id: "hpc1", name: "hpc1", scheduler: "slurm" }, platform.token);
    await send("POST", "/v1/clusters", { id: "k1", name: "k1", scheduler: "kubernetes" }, platform.token);
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => apiServer?.close(resolve));
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("cancels nothing before the grace period, then logs a dry run once per alert episode", async () => {
    await send(
      "POST",
      "/v1/jobs",
      { records: [record("hpc1", "101", "alice"), record("hpc1", "102", "bob")] },
      hpc.token,
    );
    await send(
      "POST",
      "/v1/usage",
      {
        idempotencyKey: "actions-usage-0000001",
        samples: [...idleGpu("hpc1", "101"), ...idleGpu("hpc1", "102")],
      },
      hpc.token,
    );
    const dryRun = new AlertActions({
      storage: fx.storage,
      graceMinutes: 5,
      // A dry run never runs the command: a missing one proves it.
      cancellers: { slurm: new ScancelCanceller({ command: [join(objects, "no-such-scancel")] }) },
    });
    expect((await evaluateAt(0, dryRun)).actions).toEqual({
      due: 0,
      refused: 0,
      dryRun: 0,
      done: 0,
      failed: 0,
    });
    expect((await evaluateAt(4, dryRun)).actions).toMatchObject({ due: 0, dryRun: 0 });
    expect((await evaluateAt(6, dryRun)).actions).toEqual({
      due: 2,
      refused: 0,
      dryRun: 2,
      done: 0,
      failed: 0,
    });
    expect((await evaluateAt(7, dryRun)).actions).toMatchObject({ due: 0, dryRun: 0 });

    const all = await get(platform, "/v1/alerts/actions");
    expect(all.actions.map((a) => [a.jobId, a.user, a.kind, a.rule, a.outcome, a.executor]).sort()).toEqual([
      ["101", "alice", "cancel-job", "gpus-idle", "dry-run", "scancel"],
      ["102", "bob", "cancel-job", "gpus-idle", "dry-run", "scancel"],
    ]);
    const mine = await get(alice, "/v1/alerts/actions");
    expect(mine.actions).toHaveLength(1);
    expect(mine.actions[0]).toMatchObject({ jobId: "101", warnedAt: new Date(NOW).toISOString() });
    expect(mine.actions[0].message).toMatch(
      /^Would cancel job 101: its GPUs stayed idle 6 min after the warning \(dry run\)\./,
    );
    expect(mine.actions[0].evidence[0]).toMatchObject({
      source: "nvidia-smi",
      field: "utilization.gpu",
      gpuIndex: 0,
    });
    expect(mine.actions[0].detail).toBeUndefined();
    // Another researcher's actions are out of reach, even asked for by name.
    expect((await get(bob, "/v1/alerts/actions?user=alice")).actions).toEqual([]);
    expect((await get(platform, "/v1/alerts/actions?jobId=102")).actions.map((a) => a.user)).toEqual(["bob"]);
  });

  it("deletes a Kubernetes pod for real, and leaves the policy's opted-out users and other clusters alone", async () => {
    // The platform's policy as PUT /v1/policy stores it (this app runs no intelligence service).
    await savePolicy(fx.storage.pool, { name: "site", optOutUsers: ["bob"] }, "platform");
    await send(
      "POST",
      "/v1/jobs",
      { records: [record("k1", "ml/train-1", "alice"), record("k1", "ml/train-2", "bob")] },
      k8s.token,
    );
    await send(
      "POST",
      "/v1/usage",
      {
        idempotencyKey: "actions-usage-0000002",
        samples: [...idleGpu("k1", "ml/train-1"), ...idleGpu("k1", "ml/train-2")],
      },
      k8s.token,
    );
    const { port } = apiServer.address() as AddressInfo;
    const live = new AlertActions({
      storage: fx.storage,
      dryRun: false,
      graceMinutes: 5,
      scope: { clusters: ["k1"] },
      cancellers: {
        kubernetes: new KubernetesPodDeleter({
          apiUrl: `http://127.0.0.1:${port}`,
          tokenFile: join(objects, "sa-token"),
        }),
      },
    });
    expect((await evaluateAt(0)).firing).toBeGreaterThanOrEqual(2);
    const report = (await evaluateAt(6, live)).actions;
    // bob opted out; hpc1's jobs are outside alerts.actions.clusters (and already acted on).
    expect(report).toEqual({ due: 2, refused: 1, dryRun: 0, done: 1, failed: 0 });
    expect(deleted).toEqual(["DELETE /api/v1/namespaces/ml/pods/train-1 Bearer sa-token"]);
    const onK1 = await get(platform, "/v1/alerts/actions?cluster=k1");
    expect(onK1.actions.map((a) => [a.jobId, a.outcome, a.executor, a.detail])).toEqual([
      ["ml/train-1", "done", "kubernetes", "DELETE /api/v1/namespaces/ml/pods/train-1: 200"],
    ]);
    expect(onK1.actions[0].message).toMatch(
      /^Cancelled job ml\/train-1: its GPUs stayed idle 6 min after the warning\./,
    );
  });

  it("rejects a bad query with 400 naming the field, and a collector token with 403", async () => {
    const bad = await app.inject({
      method: "GET",
      url: "/v1/alerts/actions?limit=0",
      headers: bearer(platform.token),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details?.[0]?.path ?? JSON.stringify(bad.json())).toMatch(/limit/);
    const collector = await app.inject({
      method: "GET",
      url: "/v1/alerts/actions",
      headers: bearer(hpc.token),
    });
    expect(collector.statusCode).toBe(403);
    expect((await app.inject({ method: "GET", url: "/v1/alerts/actions" })).statusCode).toBe(401);
  });

  it("fires repeated-oom on a user's running job of the shape their last jobs were killed for memory in", async () => {
    const shape = { cores: 2, memoryBytes: 8 * GiB };
    const killed = (jobId: string, hoursAgo: number, outcome: JobRecord["outcome"]): JobRecord => ({
      ...record("hpc1", jobId, "carol"),
      spec: { cluster: "hpc1", scheduler: "slurm", user: "carol", jobName: "assemble", requested: shape },
      phase: "ended",
      endedAt: minutesAgo(hoursAgo * 60),
      outcome,
      peaks: { memoryBytes: 8 * GiB + 4096 },
    });
    await send(
      "POST",
      "/v1/jobs",
      {
        records: [
          killed("201", 3, { state: "OUT_OF_MEMORY" }),
          killed("202", 30, { state: "OUT_OF_MEMORY" }),
          // SLURM without cgroups: FAILED by signal 9 over its memory.
          killed("203", 50, { state: "FAILED", signal: 9 }),
          // Killed by signal 9 under its memory: cancelled, not a memory kill.
          { ...killed("204", 5, { state: "CANCELLED", signal: 9 }), peaks: { memoryBytes: GiB } },
          {
            ...record("hpc1", "205", "carol"),
            spec: {
              cluster: "hpc1",
              scheduler: "slurm",
              user: "carol",
              jobName: "assemble",
              requested: shape,
            },
          },
        ],
      },
      hpc.token,
    );
    await send(
      "POST",
      "/v1/usage",
      {
        idempotencyKey: "actions-usage-0000003",
        samples: Array.from({ length: 6 }, (_, i) => ({
          cluster: "hpc1",
          jobId: "205",
          node: "cn-01",
          time: minutesAgo(5 - i),
          memory: { currentBytes: GiB },
        })),
      },
      hpc.token,
    );
    await evaluateAt(0);
    const alerts = (await fx.storage.alerts.list({ user: "carol", limit: 10 })).filter(
      (a) => a.rule === "repeated-oom",
    );
    expect(alerts.map((a) => [a.jobId, a.severity, a.state])).toEqual([["205", "critical", "firing"]]);
    expect(alerts[0].evidence.map((e) => e.text.split(" ended")[0])).toEqual([
      "Job 201 on hpc1",
      "Job 202 on hpc1",
      "Job 203 on hpc1",
    ]);
  });

  it("fires walltime-overrun from the progress a job reports, and stays silent for a job reporting none", async () => {
    await send(
      "POST",
      "/v1/jobs",
      {
        records: [
          {
            ...record("hpc1", "301", "dave"),
            spec: { ...record("hpc1", "301", "dave").spec, requested: { cores: 1, walltimeSeconds: 3600 } },
          },
        ],
      },
      hpc.token,
    );
    await send(
      "POST",
      "/v1/usage",
      {
        idempotencyKey: "actions-usage-0000004",
        samples: Array.from({ length: 41 }, (_, i) => ({
          cluster: "hpc1",
          jobId: "301",
          node: "cn-02",
          time: minutesAgo(40 - i),
          progress: { done: (i + 10) * 5, total: 1000, unit: "epoch" },
        })),
      },
      hpc.token,
    );
    await evaluateAt(0);
    const alerts = await fx.storage.alerts.list({ user: "dave", limit: 10 });
    expect(alerts.map((a) => [a.jobId, a.rule, a.severity])).toEqual([
      ["301", "walltime-overrun", "critical"],
    ]);
    // 250 of 1000 epochs at 5 a minute: 150 min more, past the walltime 10 min from now.
    expect(Date.parse(alerts[0].projectedAt!)).toBe(NOW + 150 * 60_000);
    const fired = await fx.storage.alerts.list({ user: "alice", limit: 10 });
    expect(fired.some((a) => a.rule === "walltime-overrun")).toBe(false);
  });

  it("judges a repeat offender's submission: held live, logged only in dry-run, left alone outside the scope", async () => {
    // carol's three memory kills of `assemble` (2 cores, 8 GiB) are stored by the repeated-oom case.
    const spec = {
      cluster: "hpc1",
      scheduler: "slurm" as const,
      user: "carol",
      jobName: "assemble",
      requested: { cores: 2, memoryBytes: 8 * GiB },
    };
    const at = new Date(NOW);
    const dry = new SubmissionHold({ storage: fx.storage, clock: () => at });
    expect(await dry.judge(spec, "hpc1")).toEqual({
      hold: false,
      message:
        "Would hold the submission of assemble by carol (dry run): 3 of your assemble jobs with 8.0 GiB were killed for memory in the last 168 h (201, 202, 203).",
      reason: "3 of your assemble jobs with 8.0 GiB were killed for memory in the last 168 h (201, 202, 203)",
    });
    const live = new SubmissionHold({
      storage: fx.storage,
      dryRun: false,
      clock: () => new Date(NOW + 1000),
    });
    expect(await live.judge(spec, "hpc1")).toMatchObject({
      hold: true,
      message: expect.stringMatching(/^jobsight: held: 3 of your/),
    });
    expect(
      await live.judge({ ...spec, requested: { cores: 2, memoryBytes: 16 * GiB } }, "hpc1"),
    ).toBeUndefined();
    expect(await live.judge(spec, "k1")).toBeUndefined();
    const outside = new SubmissionHold({ storage: fx.storage, dryRun: false, scope: { users: ["alice"] } });
    expect(await outside.judge(spec, "hpc1")).toBeUndefined();
    const log = await get(platform, "/v1/alerts/actions?user=carol");
    expect(log.actions.map((a) => [a.kind, a.outcome, a.executor, a.jobId, a.evidence.length])).toEqual([
      ["hold-submission", "done", "submit-filter", "submission:assemble", 3],
      ["hold-submission", "dry-run", "submit-filter", "submission:assemble", 3],
    ]);
  });
});
