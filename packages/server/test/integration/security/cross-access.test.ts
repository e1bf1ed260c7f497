import { apiRoutes, type Role } from "@jobsight/schemas";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import {
  type IntelligenceFixture,
  openIntelligenceFixture,
  testApp,
  testService,
} from "../intelligence/intelligence-fixture.js";
import { jobRecord, usageSample } from "../storage-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS, type TestPrincipal } from "../test-server-config.js";
import { FOREIGN_REQUESTS, reachesOwnedObjects, type Target } from "./support/foreign-requests.js";

// Generated from the route table: every route that takes a job id, a cluster, a user or an owned
// object's id is tried by every role against another user's and another cluster's objects. The
// answer must be 403 or 404 (a list may answer 200 without any of them); never 2xx, never 5xx.

const owner = PRINCIPALS.alice;
const platform = PRINCIPALS.platform;
const collectorHpc1 = collectorPrincipal("hpc1");
/** Everyone but the owner and the site-wide platform role, one of each role at least. */
const ATTACKERS: Record<string, TestPrincipal> = {
  "researcher bob": PRINCIPALS.bob,
  "researcher alice bound to hpc2": {
    token: "researcher-alice-hpc2-token-01",
    role: "researcher",
    user: "alice",
    cluster: "hpc2",
  },
  "platform bound to hpc2": PRINCIPALS.platformHpc2,
  "collector of hpc2": collectorPrincipal("hpc2"),
  "scheduler of hpc2": {
    token: "scheduler-hpc2-token-0000001",
    role: "scheduler",
    user: "slurmctld",
    cluster: "hpc2",
  },
};

describe("access to another user's or another cluster's objects, for every route and role", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  const target: Target = {
    cluster: "hpc1",
    user: owner.user,
    jobId: "a-1",
    sha256: "",
    predictionId: "",
    policy: undefined,
  };

  const call = (who: TestPrincipal, options: InjectOptions) =>
    app.inject({ ...options, headers: { ...bearer(who.token), ...(options.headers ?? {}) } });

  beforeAll(async () => {
    f = await openIntelligenceFixture("cross_access", 0);
    service = testService(f);
    await service.start();
    app = await testApp(f, service, [owner, platform, collectorHpc1, ...Object.values(ATTACKERS)]);
    for (const id of ["hpc1", "hpc2"]) {
      const res = await call(platform, {
        method: "POST",
        url: "/v1/clusters",
        payload: { id, name: id, scheduler: "slurm" },
      });
      expect(res.statusCode).toBe(201);
    }
    const ingest = [
      { url: "/v1/jobs", payload: { records: [jobRecord("hpc1", target.jobId, owner.user, 1)] } },
      {
        url: "/v1/usage",
        payload: {
          idempotencyKey: "owner-usage-01",
          samples: [usageSample("hpc1", target.jobId, "n1", 0, 5)],
        },
      },
    ];
    for (const { url, payload } of ingest) {
      expect((await call(collectorHpc1, { method: "POST", url, payload })).statusCode).toBe(200);
    }
    const artifact = await call(collectorHpc1, {
      method: "PUT",
      url: `/v1/artifacts?kind=script&cluster=hpc1&jobId=${target.jobId}`,
      headers: { "content-type": "text/plain" },
      payload: "#!/bin/bash\nsrun ./alice-secret\n",
    });
    expect(artifact.statusCode).toBe(201);
    target.sha256 = artifact.json().sha256;
    const prediction = await call(owner, {
      method: "POST",
      url: "/v1/predictions",
      payload: { spec: jobRecord("hpc1", target.jobId, owner.user, 1).spec },
    });
    expect(prediction.statusCode).toBe(200);
    target.predictionId = prediction.json().id;
    target.policy = (await call(platform, { method: "GET", url: "/v1/policy" })).json();
    // A live alert about the target's job, which no attacker's alert list may show.
    await f.fx.storage.alerts.fire(
      [
        {
          cluster: "hpc1",
          jobId: target.jobId,
          user: owner.user,
          rule: "gpus-idle",
          severity: "warning",
          message: "GPUs idle",
          evidence: [{ kind: "metric", source: "nvidia-smi", text: "idle" }],
        },
      ],
      new Date(),
    );
    // An action under policy on the target's job, which no attacker's audit log may show.
    await f.fx.storage.alertActions.record({
      cluster: "hpc1",
      jobId: target.jobId,
      user: owner.user,
      kind: "cancel-job",
      rule: "gpus-idle",
      outcome: "dry-run",
      executor: "scancel",
      message: "Would cancel",
      evidence: [{ kind: "metric", source: "nvidia-smi", text: "idle" }],
      at: new Date(),
      episode: new Date(),
    });
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  const reaching = apiRoutes.filter(reachesOwnedObjects);

  it("has a case for every route of the table that reaches a job, artifact, prediction or cluster", () => {
    expect(reaching.length).toBeGreaterThan(15);
    const missing = reaching.map((r) => r.operationId).filter((id) => !FOREIGN_REQUESTS[id]);
    expect(missing, "add a case to support/foreign-requests.ts").toEqual([]);
  });

  it("serves the owner and the site-wide platform role (the cases reach real objects)", async () => {
    for (const who of [owner, platform]) {
      for (const url of [
        `/v1/jobs/${target.jobId}?cluster=hpc1`,
        `/v1/artifacts/${target.sha256}`,
        `/v1/predictions/${target.predictionId}`,
      ]) {
        const res = await call(who, { method: "GET", url });
        expect(res.statusCode, `${who.user} GET ${url}: ${res.body.slice(0, 200)}`).toBe(200);
      }
    }
  });

  it("lets a researcher attach a file to a job of their own, on the job's cluster", async () => {
    const put = await call(owner, {
      method: "PUT",
      url: `/v1/artifacts?kind=log&jobId=${target.jobId}`,
      headers: { "content-type": "text/plain" },
      payload: "epoch 1 loss 0.3\n",
    });
    expect(put.statusCode).toBe(201);
    expect(put.json()).toMatchObject({ cluster: "hpc1", jobId: target.jobId });
    const read = await call(owner, { method: "GET", url: `/v1/artifacts/${put.json().sha256}` });
    expect(read.body).toBe("epoch 1 loss 0.3\n");
    await f.fx.storage.pool.query("DELETE FROM artifact_links WHERE sha256 = $1", [put.json().sha256]);
  });

  for (const [name, attacker] of Object.entries(ATTACKERS)) {
    it(`refuses ${name} (${attacker.role}) on every such route`, async () => {
      const failures: string[] = [];
      for (const route of reaching) {
        for (const request of FOREIGN_REQUESTS[route.operationId]?.(target) ?? []) {
          const { list, ...options } = request;
          const res = await call(attacker, options);
          const label = `${route.operationId} ${options.method} ${options.url} → ${res.statusCode}`;
          if (res.statusCode >= 500) failures.push(`${label} ${res.body.slice(0, 200)}`);
          else if (res.statusCode < 300) {
            if (!list) failures.push(label);
            else if (res.body.includes(`"${target.jobId}"`)) failures.push(`${label} lists the target`);
          } else if (![403, 404].includes(res.statusCode))
            failures.push(`${label} ${res.body.slice(0, 200)}`);
          else expect(res.json().code).toMatch(/^(FORBIDDEN|NOT_FOUND)$/);
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it("leaves the target's objects as they were", async () => {
    const job = await call(owner, { method: "GET", url: `/v1/jobs/${target.jobId}` });
    expect(job.json().phase).toBe("submitted");
    const { rows } = await f.fx.storage.pool.query(
      "SELECT kind, uploaded_by FROM artifact_links WHERE job_id = $1 ORDER BY kind",
      [target.jobId],
    );
    expect(rows).toEqual([{ kind: "script", uploaded_by: "svc-collector" }]);
    const clusters = await call(platform, { method: "GET", url: "/v1/clusters" });
    expect(clusters.json().clusters.map((c: { name: string }) => c.name)).toEqual(["hpc1", "hpc2"]);
    const roles: Role[] = Object.values(ATTACKERS).map((a) => a.role);
    expect(new Set(roles)).toEqual(new Set(["researcher", "platform", "collector", "scheduler"]));
  });
});
