// The Kubernetes hold of a repeat offender's next Job over the real database: the recorded
// AdmissionReview through POST /v1/admission/mutate, the suspend patch, and the audit row with its
// evidence as GET /v1/alerts/actions shows it; dry-run mode and a server-side dry-run request.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AlertActionList, compileValidator, type JobRecord } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import type { IntelligenceService } from "../../src/intelligence/intelligence-service.js";
import { HOLD_ANNOTATION } from "../../src/intelligence/schedulers/kubernetes/admission-hold.js";
import type { Json } from "../../src/intelligence/schedulers/kubernetes/test-support/admission-fixtures.js";
import { applyJsonPatch } from "../../src/intelligence/schedulers/kubernetes/test-support/apply-json-patch.js";
import {
  type IntelligenceFixture,
  openIntelligenceFixture,
  testService,
} from "./intelligence/intelligence-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS, type TestPrincipal } from "./test-server-config.js";

const GiB = 2 ** 30;
const { platform } = PRINCIPALS;
const collector = collectorPrincipal("k1");
const webhook: TestPrincipal = {
  token: "scheduler-k1-token-000000001",
  role: "scheduler",
  user: "kube",
  cluster: "k1",
};
const validList = compileValidator(AlertActionList);
const recordedDir = new URL(
  "../../src/intelligence/schedulers/kubernetes/test-support/recorded/",
  import.meta.url,
);

/** `kubectl -n ml apply` of the Job `etl-nightly` (4 cores, 16Gi) by `kubernetes-admin`, as recorded. */
const jobReview = (): Json =>
  JSON.parse(readFileSync(join(recordedDir.pathname, "job-kubectl-apply.json"), "utf8"));

/** An earlier `etl-nightly` of the same shape that the memory limit killed `hoursAgo` ago. */
const killed = (jobId: string, hoursAgo: number): JobRecord => ({
  cluster: "k1",
  jobId,
  phase: "ended",
  source: "kubernetes",
  spec: {
    cluster: "k1",
    scheduler: "kubernetes",
    user: "kubernetes-admin",
    jobName: "etl-nightly",
    requested: { cores: 4, memoryBytes: 16 * GiB },
  },
  submittedAt: new Date(Date.now() - (hoursAgo + 1) * 3_600_000).toISOString(),
  startedAt: new Date(Date.now() - (hoursAgo + 1) * 3_600_000).toISOString(),
  endedAt: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
  outcome: { state: "OUT_OF_MEMORY" },
});

describe("the Kubernetes hold of a repeat offender's Job, audited in the database", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let live: FastifyInstance;
  let dry: FastifyInstance;

  const appHolding = (dryRun: boolean) =>
    buildApp({
      config: parseServerConfig({
        objectStore: { dir: f.objectsDir },
        rateLimit: { enabled: false },
        http: { logLevel: "silent" },
        auth: { tokens: [platform, collector, webhook] },
        alerts: { enabled: false, actions: { enabled: true, holdRepeatOffenders: true, dryRun } },
      }),
      storage: f.fx.storage,
      objectStore: f.objects,
      intelligence: service,
    });

  const admit = async (app: FastifyInstance, review: Json) => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      headers: bearer(webhook.token),
      payload: review,
    });
    expect(res.statusCode, res.body).toBe(200);
    const response = res.json().response;
    expect(response).toMatchObject({ uid: review.request.uid, allowed: true });
    const ops = response.patch ? JSON.parse(Buffer.from(response.patch, "base64").toString()) : [];
    return { response, patched: applyJsonPatch(review.request.object, ops) as Json };
  };

  const holds = async () => {
    const res = await live.inject({
      method: "GET",
      url: "/v1/alerts/actions?user=kubernetes-admin",
      headers: bearer(platform.token),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(validList.validate(res.json()).ok).toBe(true);
    return (res.json() as AlertActionList).actions.filter((a) => a.kind === "hold-submission");
  };

  beforeAll(async () => {
    f = await openIntelligenceFixture("k8s_hold", 0);
    service = testService(f);
    await service.start();
    live = await appHolding(false);
    dry = await appHolding(true);
    const post = async (url: string, payload: object, token: string) => {
      const res = await live.inject({ method: "POST", url, payload, headers: bearer(token) });
      expect(res.statusCode, res.body).toBeLessThan(300);
    };
    await post("/v1/clusters", { id: "k1", name: "k1", scheduler: "kubernetes" }, platform.token);
    const records = [
      killed("ml/etl-nightly-a", 50),
      killed("ml/etl-nightly-b", 26),
      killed("ml/etl-nightly-c", 2),
    ];
    await post("/v1/jobs", { records }, collector.token);
  });

  afterAll(async () => {
    await live?.close();
    await dry?.close();
    await service?.stop();
    await f?.dispose();
  });

  it("admits the Job suspended and writes one audit row citing the earlier kills", async () => {
    const { response, patched } = await admit(live, jobReview());
    expect(patched.spec.suspend).toBe(true);
    expect(patched.metadata.annotations[HOLD_ANNOTATION]).toContain(
      "3 of your etl-nightly jobs with 16.0 GiB",
    );
    expect(response.warnings.at(-1)).toMatch(/^jobsight held Job etl-nightly: /);

    const rows = await holds();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      cluster: "k1",
      user: "kubernetes-admin",
      jobId: "submission:etl-nightly",
      rule: "repeated-oom",
      outcome: "done",
      executor: "admission-webhook",
      message: expect.stringMatching(/^jobsight: held: 3 of your etl-nightly jobs/),
    });
    expect(rows[0].evidence.map((e) => e.text.split(" ended")[0])).toEqual([
      "Job ml/etl-nightly-c on k1",
      "Job ml/etl-nightly-b on k1",
      "Job ml/etl-nightly-a on k1",
    ]);
    expect(rows[0].evidence.every((e) => e.textValue === "OUT_OF_MEMORY")).toBe(true);
  });

  it("in dry-run mode patches nothing and writes a dry-run row", async () => {
    const before = await holds();
    const review = jobReview();
    const { response, patched } = await admit(dry, review);
    expect(response.patch).toBeUndefined();
    expect(patched).toEqual(review.request.object);
    const after = await holds();
    expect(after).toHaveLength(before.length + 1);
    const added = after.filter((a) => !before.some((b) => b.id === a.id));
    expect(added).toMatchObject([
      {
        outcome: "dry-run",
        executor: "admission-webhook",
        message: expect.stringMatching(
          /^Would hold the submission of etl-nightly by kubernetes-admin \(dry run\)/,
        ),
      },
    ]);
    expect(added[0].evidence).toHaveLength(3);
  });

  it("holds a server-side dry-run request without writing a row", async () => {
    const before = await holds();
    const review = jobReview();
    review.request.dryRun = true;
    const { patched } = await admit(live, review);
    expect(patched.spec.suspend).toBe(true);
    expect(await holds()).toEqual(before);
  });
});
