import type { ApiRoute } from "@jobsight/schemas";
import type { InjectOptions } from "fastify";
import { jobRecord, usageSample } from "../../storage-fixture.js";

/** The objects of one user on one cluster that everyone else tries to reach. */
export type Target = {
  cluster: string;
  user: string;
  jobId: string;
  /** An artifact of the job (uploaded by the cluster's collector). */
  sha256: string;
  /** A prediction the user asked for. */
  predictionId: string;
  /** The site's policy, as a valid body to simulate. */
  policy: unknown;
};

/** A request naming the target's objects; `list` marks answers that may be 200 if they hold none of them. */
export type ForeignRequest = InjectOptions & { list?: boolean };

// Property names that make a route reach a job, an artifact, a prediction or a cluster.
const OWNED = ["jobId", "cluster", "user", "sha256"];

/**
 * Whether a route of the table takes a job id, a cluster, a user or an owned object's id: every
 * such route must have a case in {@link FOREIGN_REQUESTS}.
 */
export function reachesOwnedObjects(route: ApiRoute): boolean {
  const parts = [route.params, route.query, route.body].filter((s) => s !== undefined);
  const text = parts.map((s) => JSON.stringify(s)).join(" ");
  if (OWNED.some((key) => text.includes(`"${key}":{`))) return true;
  // `{id}` of a prediction, `id` of a cluster.
  return text.includes('"id":{');
}

const q = (t: Target) => `cluster=${t.cluster}`;
const job = (t: Target) => `/v1/jobs/${encodeURIComponent(t.jobId)}`;
const spec = (t: Target) => jobRecord(t.cluster, t.jobId, t.user, 0).spec;

/** For each operation: requests naming the target's job, cluster, artifact or prediction. */
export const FOREIGN_REQUESTS: Record<string, (t: Target) => ForeignRequest[]> = {
  ingestJobRecords: (t) => [
    { method: "POST", url: "/v1/jobs", payload: { records: [jobRecord(t.cluster, t.jobId, t.user, 5)] } },
  ],
  listJobs: (t) => [
    { method: "GET", url: `/v1/jobs?${q(t)}`, list: true },
    { method: "GET", url: `/v1/jobs?${q(t)}&user=${t.user}`, list: true },
  ],
  getJob: (t) => [
    { method: "GET", url: job(t) },
    { method: "GET", url: `${job(t)}?${q(t)}` },
  ],
  getJobUsage: (t) => [
    { method: "GET", url: `${job(t)}/usage?${q(t)}` },
    { method: "GET", url: `${job(t)}/usage` },
  ],
  getJobEvents: (t) => [
    { method: "GET", url: `${job(t)}/events?${q(t)}` },
    { method: "GET", url: `${job(t)}/events` },
  ],
  getDiagnosis: (t) => [
    { method: "GET", url: `${job(t)}/diagnosis?${q(t)}` },
    { method: "GET", url: `${job(t)}/diagnosis` },
  ],
  getAdviceHistory: (t) => [
    { method: "GET", url: `${job(t)}/advice-history?${q(t)}` },
    { method: "GET", url: `${job(t)}/advice-history` },
  ],
  ingestUsage: (t) => [
    {
      method: "POST",
      url: "/v1/usage",
      payload: {
        idempotencyKey: "foreign-usage-0001",
        samples: [usageSample(t.cluster, t.jobId, "n9", 9, 1)],
      },
    },
  ],
  ingestNodeEvents: (t) => [
    {
      method: "POST",
      url: "/v1/events",
      payload: {
        events: [
          {
            cluster: t.cluster,
            node: "n9",
            time: "2026-12-01T10:00:00Z",
            kind: "oom_kill",
            jobId: t.jobId,
            oomKill: { pid: 7, processName: "python" },
            message: "Out of memory: Killed process 7 (python)",
          },
        ],
      },
    },
  ],
  putArtifact: (t) => [
    {
      method: "PUT",
      url: `/v1/artifacts?kind=log&${q(t)}&jobId=${encodeURIComponent(t.jobId)}`,
      headers: { "content-type": "text/plain" },
      payload: "rm -rf ~ # planted in someone else's job",
    },
  ],
  getArtifact: (t) => [{ method: "GET", url: `/v1/artifacts/${t.sha256}` }],
  createPrediction: (t) => [{ method: "POST", url: "/v1/predictions", payload: { spec: spec(t) } }],
  createPredictionBatch: (t) => [
    { method: "POST", url: "/v1/predictions/batch", payload: { requests: [{ spec: spec(t) }] } },
  ],
  getPrediction: (t) => [{ method: "GET", url: `/v1/predictions/${t.predictionId}` }],
  getAccuracy: (t) => [{ method: "GET", url: `/v1/accuracy?${q(t)}` }],
  getWasteReport: (t) => [{ method: "GET", url: `/v1/reports/waste?${q(t)}` }],
  simulatePolicy: (t) => [
    { method: "POST", url: "/v1/policy/simulate", payload: { policy: t.policy, cluster: t.cluster } },
  ],
  listPolicyAudit: (t) => [{ method: "GET", url: `/v1/policy/audit?${q(t)}&user=${t.user}` }],
  adviseSlurmSubmission: (t) => [
    {
      method: "POST",
      url: "/v1/schedulers/slurm/advice",
      payload: { cluster: t.cluster, user: t.user, options: { time: "60" } },
    },
  ],
  registerCluster: (t) => [
    {
      method: "POST",
      url: "/v1/clusters",
      payload: { id: t.cluster, name: "taken over", scheduler: "slurm" },
    },
  ],
  // The admin routes: no role these tests try may remove the target's cluster, issue a token on
  // it or list its users.
  removeCluster: (t) => [{ method: "DELETE", url: `/v1/clusters/${t.cluster}?force=true` }],
  createToken: (t) => [
    { method: "POST", url: "/v1/tokens", payload: { role: "researcher", user: t.user, cluster: t.cluster } },
    { method: "POST", url: "/v1/tokens", payload: { role: "collector", cluster: t.cluster } },
  ],
  listUsers: (t) => [{ method: "GET", url: `/v1/users?${q(t)}`, list: true }],
  listAlerts: (t) => [
    { method: "GET", url: `/v1/alerts?${q(t)}`, list: true },
    { method: "GET", url: `/v1/alerts?${q(t)}&user=${t.user}`, list: true },
  ],
  // Site-wide per user: reading may answer (the caller's own, or any for the platform role) but
  // holds no job; changing another user's, or with a cluster-bound token, is refused.
  getAlertPreferences: (t) => [{ method: "GET", url: `/v1/alerts/preferences?user=${t.user}`, list: true }],
  setAlertPreferences: (t) => [
    {
      method: "PUT",
      url: `/v1/alerts/preferences?user=${t.user}`,
      payload: { enabled: false, channels: [], digest: false },
    },
  ],
  listAlertActions: (t) => [
    { method: "GET", url: `/v1/alerts/actions?${q(t)}`, list: true },
    { method: "GET", url: `/v1/alerts/actions?${q(t)}&user=${t.user}`, list: true },
    { method: "GET", url: `/v1/alerts/actions?${q(t)}&jobId=${encodeURIComponent(t.jobId)}`, list: true },
  ],
};
