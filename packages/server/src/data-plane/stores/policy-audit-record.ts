import type { PolicyAdjustment, PredictionMode, ResourceName } from "@jobsight/schemas";

/** Which integration applied (or, in shadow mode, would have applied) a change. */
export type PolicyActor = "kubernetes-admission" | "slurm-cli-filter" | "slurm-job-submit" | "api";

/** The rule that set a value last, i.e. the one that limited it. */
export type LimitingRule = PolicyAdjustment["rule"];

/**
 * One change of one resource of one job, as applied under a policy: who, what, before, after,
 * the model version and the rule that limited it.
 */
export type PolicyAuditRecord = {
  /** Assigned by the store. */
  id?: string;
  /** When the change was decided (RFC 3339). */
  recordedAt: string;
  cluster: string;
  actor: PolicyActor;
  /** The user whose job it is. */
  user: string;
  /** Who submitted it, when that is someone else (a Kubernetes controller, root). */
  submittedBy?: string;
  /** The job as the scheduler names it, e.g. `Pod ml/train-x container=main` or `sbatch train.sh`. */
  job: string;
  resource: ResourceName;
  /** The request; null when the job asked for nothing. */
  before: number | null;
  after: number;
  modelVersion: string;
  /** Name of the policy. */
  policy: string;
  /** The last rule that moved the value; null when the recommendation went through untouched. */
  limitedBy: LimitingRule | null;
  adjustments: PolicyAdjustment[];
  /** `shadow`: recorded only, nothing was changed. */
  mode: PredictionMode;
  predictionId?: string;
};

/** Where audit records go; the PostgreSQL store, or anything else that keeps them. */
export type PolicyAuditSink = {
  record(records: readonly PolicyAuditRecord[]): Promise<void>;
};
