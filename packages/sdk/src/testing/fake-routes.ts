import type {
  AccuracyReport,
  AccuracySlice,
  AdviceHistory,
  Artifact,
  Cluster,
  JobRecord,
  JobRecordBatch,
  NodeEventBatch,
  Policy,
  Prediction,
  PredictionBatchRequest,
  PredictionRequest,
  ResourcePrediction,
  UsageBatch,
  WasteReport,
} from "@jobsight/schemas";
import type { OperationId } from "../http/route-table.js";
import {
  fakeCreateToken,
  fakeListUsers,
  fakeModelStatus,
  fakePromoteModel,
  fakeRemoveCluster,
  fakeRevokeToken,
  fakeRollbackModel,
} from "./fake-admin-routes.js";
import {
  fakeGetAlertPreferences,
  fakeListAlertActions,
  fakeListAlerts,
  fakeSetAlertPreferences,
} from "./fake-alert-routes.js";
import { fakeDiagnose, renderDiagnosisMarkdown } from "./fake-diagnosis.js";
import { fakeAdmission, fakePolicyAudit, fakeSimulatePolicy, fakeSlurmAdvice } from "./fake-policy-routes.js";
import { apiError, type FakeAnswer, type FakeRouteContext } from "./fake-route-context.js";

const ok = (json: unknown, status = 200): FakeAnswer => ({ status, json });

function notFound(what: string): FakeAnswer {
  return apiError(404, "NOT_FOUND", `${what} not found`);
}

function predictOne(ctx: FakeRouteContext, request: PredictionRequest): Prediction {
  const key = request.idempotencyKey && `prediction:${request.idempotencyKey}`;
  if (key && ctx.store.idempotent.has(key)) return ctx.store.idempotent.get(key) as Prediction;
  const history = [...ctx.store.jobs.values()];
  const resources = ctx.predict(request, history);
  const prediction: Prediction = {
    id: ctx.store.nextPredictionId(),
    createdAt: ctx.now().toISOString(),
    mode: ctx.mode,
    modelVersion: `fake-${ctx.version}`,
    cluster: request.spec.cluster,
    user: request.spec.user,
    resources: ctx.mode === "shadow" ? [] : resources,
    ...(ctx.mode === "shadow"
      ? {
          notice:
            "Shadow mode: the prediction is recorded for the accuracy report; no recommendation is shown.",
          ...(ctx.shadowUntil ? { shadowUntil: ctx.shadowUntil } : {}),
        }
      : {}),
  };
  ctx.store.predictions.set(prediction.id, prediction);
  // Kept with the full resources, so the accuracy report can count what shadow mode recorded.
  ctx.store.idempotent.set(`resources:${prediction.id}`, resources);
  if (key) ctx.store.idempotent.set(key, prediction);
  return prediction;
}

function listJobs(ctx: FakeRouteContext): FakeAnswer {
  const q = ctx.query as Record<string, string | number | undefined>;
  const from = q.from ? Date.parse(String(q.from)) : Number.NEGATIVE_INFINITY;
  const to = q.to ? Date.parse(String(q.to)) : Number.POSITIVE_INFINITY;
  const jobs = [...ctx.store.jobs.values()]
    .filter(
      (j) =>
        (q.cluster === undefined || j.cluster === q.cluster) &&
        (q.user === undefined || j.spec.user === q.user),
    )
    .filter(
      (j) =>
        (q.account === undefined || j.spec.account === q.account) &&
        (q.partition === undefined || j.spec.partition === q.partition),
    )
    .filter((j) => q.state === undefined || j.outcome?.state === q.state)
    .filter((j) => Date.parse(j.submittedAt) >= from && Date.parse(j.submittedAt) < to)
    .sort((a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt) || (a.jobId < b.jobId ? 1 : -1));
  const offset = q.cursor === undefined ? 0 : Number.parseInt(String(q.cursor).replace(/^o/, ""), 10);
  if (!Number.isInteger(offset) || offset < 0)
    return apiError(400, "INVALID_CURSOR", "the cursor is not one this server gave");
  const limit = Number(q.limit ?? 100);
  const items = jobs.slice(offset, offset + limit);
  const next = offset + limit < jobs.length ? `o${offset + limit}` : null;
  return ok({ items, nextCursor: next });
}

function accuracy(ctx: FakeRouteContext): AccuracyReport {
  const cluster = ctx.query.cluster as string | undefined;
  const recorded = [...ctx.store.predictions.values()].filter((p) => !cluster || p.cluster === cluster);
  const slices: AccuracySlice[] = [];
  for (const resource of ["memory", "cores", "gpus", "gpuMemory", "walltime"] as const) {
    const outcomes = recorded
      .map((p) => (ctx.store.idempotent.get(`resources:${p.id}`) as ResourcePrediction[] | undefined) ?? [])
      .map((rs) => rs.find((r) => r.resource === resource))
      .filter((r) => r !== undefined);
    if (outcomes.length === 0) continue;
    const recommended = outcomes.filter((r) => r.status === "ok").length;
    slices.push({
      resource,
      predicted: outcomes.length,
      recommended,
      coverage: recommended / outcomes.length,
      underPredictionRate: 0,
      weightedUnderPredictionRate: 0,
      slack: 0,
    });
  }
  return {
    generatedAt: ctx.now().toISOString(),
    mode: ctx.mode,
    ...(ctx.shadowUntil ? { shadowUntil: ctx.shadowUntil } : {}),
    slices,
    readiness: { ready: false, reasons: ["the fake server never measures what jobs did"] },
  };
}

const DAY_MS = 86_400_000;

// The fake records predictions without the job identity they were made for, so it has no advice
// history to tell: it answers the period the server would read, with nothing in it.
function emptyAdviceHistory(job: JobRecord): AdviceHistory {
  const submitted = Date.parse(job.submittedAt);
  return {
    cluster: job.cluster,
    jobId: job.jobId,
    from: new Date(submitted - 30 * DAY_MS).toISOString(),
    to: new Date(submitted + 120_000).toISOString(),
    asked: 0,
    models: [],
    resources: [],
  };
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** One handler per operation of the route table. */
export const fakeRoutes: Record<OperationId, (ctx: FakeRouteContext) => FakeAnswer | Promise<FakeAnswer>> = {
  getHealth: (ctx) => ok({ status: "ok", version: ctx.version }),
  getReadiness: (ctx) => ok({ status: "ok", version: ctx.version, checks: { storage: "ok" } }),
  getMetrics: () => ({
    status: 200,
    text: "# HELP jobsight_fake_up The fake server answers.\n# TYPE jobsight_fake_up gauge\njobsight_fake_up 1\n",
    contentType: "text/plain; version=0.0.4; charset=utf-8",
  }),
  ingestJobRecords: (ctx) => {
    let accepted = 0;
    for (const record of (ctx.body as JobRecordBatch).records) if (ctx.store.putJob(record)) accepted++;
    return ok({ accepted, duplicates: (ctx.body as JobRecordBatch).records.length - accepted });
  },
  listJobs,
  getJob: (ctx) => {
    const job = ctx.store.getJob(ctx.query.cluster as string | undefined, ctx.params.jobId);
    return job ? ok(job) : notFound(`job ${ctx.params.jobId}`);
  },
  getJobUsage: (ctx) => {
    const job = ctx.store.getJob(ctx.query.cluster as string | undefined, ctx.params.jobId);
    if (!job) return notFound(`job ${ctx.params.jobId}`);
    return ok({ cluster: job.cluster, jobId: job.jobId, samples: ctx.store.usageOf(job.cluster, job.jobId) });
  },
  getJobEvents: (ctx) => {
    const job = ctx.store.getJob(ctx.query.cluster as string | undefined, ctx.params.jobId);
    if (!job) return notFound(`job ${ctx.params.jobId}`);
    return ok({ events: ctx.store.eventsOf(job.cluster, job.jobId) });
  },
  getDiagnosis: (ctx) => {
    const job = ctx.store.getJob(ctx.query.cluster as string | undefined, ctx.params.jobId);
    if (!job) return notFound(`job ${ctx.params.jobId}`);
    const diagnosis = fakeDiagnose(job, ctx.store.eventsOf(job.cluster, job.jobId), ctx.now());
    if (ctx.accept.includes("text/markdown")) {
      return {
        status: 200,
        text: renderDiagnosisMarkdown(diagnosis),
        contentType: "text/markdown; charset=utf-8",
      };
    }
    return ok(diagnosis);
  },
  ingestUsage: (ctx) => {
    const batch = ctx.body as UsageBatch;
    if (ctx.store.idempotent.has(`usage:${batch.idempotencyKey}`))
      return ok({ accepted: 0, duplicates: batch.samples.length });
    ctx.store.idempotent.set(`usage:${batch.idempotencyKey}`, true);
    for (const sample of batch.samples) ctx.store.putUsage(sample);
    return ok({ accepted: batch.samples.length, duplicates: 0 });
  },
  ingestNodeEvents: (ctx) => {
    const { events } = ctx.body as NodeEventBatch;
    let accepted = 0;
    for (const event of events) {
      const key = event.idempotencyKey && `event:${event.idempotencyKey}`;
      if (key && ctx.store.idempotent.has(key)) continue;
      if (key) ctx.store.idempotent.set(key, true);
      ctx.store.events.push(event);
      accepted++;
    }
    return ok({ accepted, duplicates: events.length - accepted });
  },
  putArtifact: async (ctx) => {
    const sha256 = await sha256Hex(ctx.rawBody);
    const query = ctx.query as { kind: Artifact["kind"]; cluster?: string; jobId?: string };
    const meta: Artifact = {
      sha256,
      kind: query.kind,
      sizeBytes: ctx.rawBody.byteLength,
      contentType: "application/octet-stream",
      ...(query.cluster ? { cluster: query.cluster } : {}),
      ...(query.jobId ? { jobId: query.jobId } : {}),
      createdAt: ctx.now().toISOString(),
    };
    if (!ctx.store.artifacts.has(sha256)) ctx.store.artifacts.set(sha256, { meta, bytes: ctx.rawBody });
    return ok(ctx.store.artifacts.get(sha256)!.meta, 201);
  },
  getArtifact: (ctx) => {
    const artifact = ctx.store.artifacts.get(ctx.params.sha256);
    return artifact
      ? { status: 200, bytes: artifact.bytes, contentType: "application/octet-stream" }
      : notFound("artifact");
  },
  createPrediction: (ctx) => ok(predictOne(ctx, ctx.body as PredictionRequest)),
  createPredictionBatch: (ctx) =>
    ok({ predictions: (ctx.body as PredictionBatchRequest).requests.map((r) => predictOne(ctx, r)) }),
  getPrediction: (ctx) => {
    const prediction = ctx.store.predictions.get(ctx.params.id);
    return prediction ? ok(prediction) : notFound(`prediction ${ctx.params.id}`);
  },
  getAdviceHistory: (ctx) => {
    const job = ctx.store.getJob(ctx.query.cluster as string | undefined, ctx.params.jobId);
    return job ? ok(emptyAdviceHistory(job)) : notFound(`job ${ctx.params.jobId}`);
  },
  getAccuracy: (ctx) => ok(accuracy(ctx)),
  getWasteReport: (ctx) => ok(wasteReport(ctx)),
  getPolicy: (ctx) => ok(ctx.store.policy),
  putPolicy: (ctx) => {
    ctx.store.policy = ctx.body as Policy;
    return ok(ctx.store.policy);
  },
  simulatePolicy: fakeSimulatePolicy,
  listPolicyAudit: fakePolicyAudit,
  admitKubernetesObject: fakeAdmission,
  adviseSlurmSubmission: fakeSlurmAdvice,
  listClusters: (ctx) => ok({ clusters: [...ctx.store.clusters.values()] }),
  registerCluster: (ctx) => {
    const cluster = { createdAt: ctx.now().toISOString(), ...(ctx.body as Cluster) };
    if (ctx.store.clusters.has(cluster.id))
      return apiError(409, "CLUSTER_EXISTS", `cluster ${cluster.id} exists`);
    ctx.store.clusters.set(cluster.id, cluster);
    return ok(cluster, 201);
  },
  removeCluster: fakeRemoveCluster,
  listTokens: (ctx) => ok({ tokens: ctx.store.tokens }),
  createToken: fakeCreateToken,
  revokeToken: fakeRevokeToken,
  listUsers: fakeListUsers,
  getModelStatus: fakeModelStatus,
  promoteModel: fakePromoteModel,
  rollbackModel: fakeRollbackModel,
  listAlerts: fakeListAlerts,
  listAlertActions: fakeListAlertActions,
  getAlertPreferences: fakeGetAlertPreferences,
  setAlertPreferences: fakeSetAlertPreferences,
};

// Requested against used of the stored ended jobs, grouped like the real server groups them.
function wasteReport(ctx: FakeRouteContext): WasteReport {
  const by = (ctx.query.by as "user" | "account" | "partition" | undefined) ?? "user";
  const rows = new Map<string, WasteReport["rows"][number]>();
  for (const job of ctx.store.jobs.values()) {
    if (job.phase !== "ended") continue;
    const key =
      (by === "user" ? job.spec.user : by === "account" ? job.spec.account : job.spec.partition) ?? "";
    const row = rows.get(key) ?? {
      key,
      jobs: 0,
      memoryRequestedByteSeconds: 0,
      memoryUsedByteSeconds: 0,
      coreSecondsRequested: 0,
      coreSecondsUsed: 0,
      gpuSecondsRequested: 0,
      gpuSecondsUsed: 0,
      walltimeRequestedSeconds: 0,
      walltimeUsedSeconds: 0,
    };
    const run = job.peaks?.runTimeSeconds ?? 0;
    const req = job.spec.requested;
    row.jobs++;
    if (req.memoryBytes !== undefined && job.peaks?.memoryBytes !== undefined) {
      row.memoryRequestedByteSeconds += req.memoryBytes * run;
      row.memoryUsedByteSeconds += job.peaks.memoryBytes * run;
    }
    if (req.cores !== undefined && job.peaks?.cpuTimeSeconds !== undefined) {
      row.coreSecondsRequested += req.cores * run;
      row.coreSecondsUsed += job.peaks.cpuTimeSeconds;
    }
    if (req.gpus !== undefined && job.peaks?.gpusUsed !== undefined) {
      row.gpuSecondsRequested += req.gpus * run;
      row.gpuSecondsUsed += job.peaks.gpusUsed * run;
    }
    if (req.walltimeSeconds !== undefined) {
      row.walltimeRequestedSeconds += req.walltimeSeconds;
      row.walltimeUsedSeconds += run;
    }
    rows.set(key, row);
  }
  const waste = (r: WasteReport["rows"][number]) => r.memoryRequestedByteSeconds - r.memoryUsedByteSeconds;
  return {
    generatedAt: ctx.now().toISOString(),
    by,
    rows: [...rows.values()].sort((a, b) => waste(b) - waste(a)),
  };
}
