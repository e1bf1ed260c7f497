import type { JobSpec, Policy } from "@jobsight/schemas";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import { DEFAULT_POLICY, loadPolicy } from "../../../data-plane/stores/policy-store.js";
import { killsOfShape } from "../rules/job-shape.js";
import { killEvidence } from "../rules/repeated-oom.js";
import { type ActionScope, refusal } from "./action-scope.js";

/** Options of {@link SubmissionHold}. */
export type SubmissionHoldOptions = {
  storage: Pick<DataPlaneStorage, "pool" | "alertActions" | "oomKilledJobs">;
  /** Only log the hold; the submission goes through. @default true */
  dryRun?: boolean;
  /** This many of the user's jobs of the submission's shape killed for memory… @default 3 */
  count?: number;
  /** …within this many hours make the user a repeat offender. @default 168 */
  windowHours?: number;
  /** Who may be acted on. @default everyone (the platform policy's exclusions still apply) */
  scope?: Partial<ActionScope>;
  /** The platform policy. @default the stored policy, read at each judgement */
  policy?: () => Promise<Policy>;
  /** @default () => new Date() */
  clock?: () => Date;
};

/** What to do with one submission: hold it (false in dry-run), the message for its user, and why. */
export type HoldDecision = { hold: boolean; message: string; reason?: string };

/** Where a submission is judged: SLURM's submit filter (the default) or the Kubernetes admission webhook. */
export type HoldVia = {
  /** @default "slurm" */
  scheduler?: "slurm" | "kubernetes";
  /** Write the decision to the audit log; false for a server-side dry-run request. @default true */
  record?: boolean;
};

/** Judges one submission; `undefined` lets it through. */
export type HoldJudge = (spec: JobSpec, cluster: string, via?: HoldVia) => Promise<HoldDecision | undefined>;

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/**
 * Holds the next submission of a repeat offender for confirmation: when at least `count` of the
 * user's jobs of the submission's shape (see `sameShape`) were killed for memory within
 * `windowHours`, the submit filter is told to hold the job (SLURM: the job is queued held until
 * the user or an operator releases it, after raising its memory), or the admission webhook admits
 * it suspended (Kubernetes: see `admission-hold.ts`). Within the policy's scope only;
 * every hold, or dry-run decision, goes to the audit log with the earlier kills as evidence.
 *
 * @example
 * ```ts
 * const hold = new SubmissionHold({ storage, dryRun: false });
 * await hold.judge(spec, "hpc1"); // { hold: true, message: "jobsight: held: …" }
 * ```
 */
export class SubmissionHold {
  constructor(private readonly options: SubmissionHoldOptions) {}

  /** @throws what the storage throws; the submit path treats that as no hold (fails open). */
  async judge(spec: JobSpec, cluster: string, via: HoldVia = {}): Promise<HoldDecision | undefined> {
    const scheduler = via.scheduler ?? "slurm";
    const o = this.options;
    const now = (o.clock ?? (() => new Date()))();
    const windowHours = o.windowHours ?? 168;
    const shape = {
      requestedMemoryBytes: spec.requested.memoryBytes,
      requestedCores: spec.requested.cores,
      requestedGpus: spec.requested.gpus,
      jobName: spec.jobName,
      scriptHash: spec.scriptHash,
    };
    const history = await o.storage.oomKilledJobs({
      since: new Date(+now - windowHours * 3_600_000),
      users: [spec.user],
    });
    const kills = killsOfShape(shape, history, +now, windowHours).filter((k) => k.cluster === cluster);
    if (kills.length < (o.count ?? 3)) return undefined;
    const policy = o.policy ? await o.policy() : ((await loadPolicy(o.storage.pool)) ?? DEFAULT_POLICY);
    const scope: ActionScope = { clusters: [], users: [], accounts: [], partitions: [], ...o.scope };
    const target = {
      cluster,
      user: spec.user,
      account: spec.account,
      partition: spec.partition,
      scheduler,
    };
    if (refusal(target, scope, policy) !== undefined) return undefined;
    const dryRun = o.dryRun ?? true;
    const name = spec.jobName ?? "job";
    const memory = spec.requested.memoryBytes !== undefined ? ` with ${gib(spec.requested.memoryBytes)}` : "";
    const why = `${kills.length} of your ${name} jobs${memory} were killed for memory in the last ${windowHours} h (${kills
      .slice(0, 3)
      .map((k) => k.jobId)
      .join(", ")})`;
    const confirm =
      scheduler === "kubernetes"
        ? "raise its memory request, or confirm it as it is (see the jobsight.io/hold annotation)"
        : "raise --mem, then release it with scontrol release <jobid>";
    const message = dryRun
      ? `Would hold the submission of ${name} by ${spec.user} (dry run): ${why}.`
      : `jobsight: held: ${why}; ${confirm}.`;
    if (via.record === false) return { hold: !dryRun, message, reason: why };
    await o.storage.alertActions.record({
      cluster,
      jobId: `submission:${name}`.slice(0, 256),
      user: spec.user,
      kind: "hold-submission",
      rule: "repeated-oom",
      outcome: dryRun ? "dry-run" : "done",
      executor: scheduler === "kubernetes" ? "admission-webhook" : "submit-filter",
      message: message.slice(0, 2048),
      evidence: kills.slice(0, 16).map(killEvidence),
      at: now,
      episode: now,
    });
    return { hold: !dryRun, message, reason: why };
  }
}
