import type {
  Alert,
  AlertAction,
  AlertPreferences,
  ApiToken,
  Artifact,
  Cluster,
  JobRecord,
  ModelVersion,
  NodeEvent,
  Policy,
  PolicyAuditRecord,
  Prediction,
  UsageSample,
} from "@jobsight/schemas";

const jobKey = (cluster: string, jobId: string) => `${cluster}\u0000${jobId}`;
const phaseRank = { submitted: 0, started: 1, ended: 2 } as const;

/** What the fake server holds; tests may read and seed it directly. */
export class FakeStore {
  readonly jobs = new Map<string, JobRecord>();
  readonly predictions = new Map<string, Prediction>();
  readonly usage = new Map<string, UsageSample[]>();
  readonly events: NodeEvent[] = [];
  readonly artifacts = new Map<string, { meta: Artifact; bytes: Uint8Array }>();
  readonly clusters = new Map<string, Cluster>();
  /** Idempotency keys already seen, with what was answered the first time. */
  readonly idempotent = new Map<string, unknown>();
  policy: Policy = { name: "default" };
  /** Changes applied under the policy; the fake records none itself, tests seed them. */
  readonly policyAudit: PolicyAuditRecord[] = [];
  /** Issued API tokens, newest first (the fake keeps no secrets). */
  readonly tokens: ApiToken[] = [];
  /** Trained model versions, newest first; the fake trains none, tests seed them. */
  readonly models: ModelVersion[] = [];
  /** Live alerts; the fake evaluates no rules, tests seed them. */
  readonly alerts: Alert[] = [];
  /** The audit log of actions under policy; the fake takes no action, tests seed it. */
  readonly alertActions: AlertAction[] = [];
  /** Alert preferences set, by user. */
  readonly alertPreferences = new Map<string, AlertPreferences>();
  private predictionCounter = 0;

  /**
   * Store a job record; a later phase of the same job updates the earlier one, a resend of the
   * same phase is a duplicate. Returns whether it was stored.
   */
  putJob(record: JobRecord): boolean {
    const key = jobKey(record.cluster, record.jobId);
    const existing = this.jobs.get(key);
    if (existing && phaseRank[existing.phase] >= phaseRank[record.phase]) return false;
    this.jobs.set(key, existing ? { ...existing, ...record } : record);
    return true;
  }

  getJob(cluster: string | undefined, jobId: string): JobRecord | undefined {
    if (cluster) return this.jobs.get(jobKey(cluster, jobId));
    return [...this.jobs.values()].find((j) => j.jobId === jobId);
  }

  putUsage(sample: UsageSample): void {
    const key = jobKey(sample.cluster, sample.jobId);
    const list = this.usage.get(key) ?? [];
    list.push(sample);
    list.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
    this.usage.set(key, list);
  }

  usageOf(cluster: string, jobId: string): UsageSample[] {
    return this.usage.get(jobKey(cluster, jobId)) ?? [];
  }

  eventsOf(cluster: string, jobId: string): NodeEvent[] {
    return this.events.filter((e) => e.cluster === cluster && e.jobId === jobId);
  }

  nextPredictionId(): string {
    this.predictionCounter += 1;
    return `p_${String(this.predictionCounter).padStart(6, "0")}`;
  }

  clear(): void {
    this.jobs.clear();
    this.predictions.clear();
    this.usage.clear();
    this.events.length = 0;
    this.artifacts.clear();
    this.clusters.clear();
    this.idempotent.clear();
    this.policy = { name: "default" };
    this.policyAudit.length = 0;
    this.tokens.length = 0;
    this.models.length = 0;
    this.alerts.length = 0;
    this.alertPreferences.clear();
    this.predictionCounter = 0;
  }
}
