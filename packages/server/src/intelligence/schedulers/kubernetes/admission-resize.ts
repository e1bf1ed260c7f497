import type { JobSpec, Policy, PredictionMode } from "@jobsight/schemas";
import type { PolicyAuditRecord } from "../../../data-plane/stores/policy-audit-record.js";
import { applyPolicy, type PolicyDecision } from "../../policy/apply-policy.js";
import { auditRecordsFor } from "../../policy/policy-audit.js";
import type { PredictionResult, SchedulerLogger } from "../predict-function.js";
import type { AdmissionRequest } from "./admission-review.js";
import { changesAnnotationOps, describeChanges } from "./changes-annotation.js";
import type { JsonPatchOperation } from "./json-patch.js";
import type { mainContainer } from "./pod-job-spec.js";
import type { PodWorkload } from "./pod-workloads.js";
import { type InitContainerMode, planWorkload } from "./workload-plan.js";

/** A workload of the admitted object and the container its prediction is for. */
export type ResizeTarget = { workload: PodWorkload; main: NonNullable<ReturnType<typeof mainContainer>> };

/** What the predictions change in one admitted object. */
export type AdmissionResize = {
  /** The JSONPatch of live changes (none in shadow mode). */
  ops: JsonPatchOperation[];
  /** One line per workload changed, for the log and the submitter's warning. */
  summary: string[];
  /** The audit records of every change, or would-be change in shadow mode. */
  records: PolicyAuditRecord[];
  /** Whether a change was only recorded because the webhook or a prediction is in shadow mode. */
  shadow: boolean;
};

/** How the webhook resizes: its settings, as read for this review. */
export type ResizeSettings = {
  cluster: string;
  policy: Policy;
  mode: PredictionMode;
  initContainers: InitContainerMode;
  memoryGranularityBytes?: number;
  at?: Date;
};

/**
 * Applies the policy to each target's prediction and plans the patch that writes it: the
 * containers' `resources` and the `jobsight.io/changes` annotation, with one audit record per
 * changed value. A shadow prediction only records.
 *
 * @example
 * ```ts
 * const { ops, records } = planResize(request, targets, specs, predictions, settings, log);
 * ```
 */
export function planResize(
  request: AdmissionRequest,
  targets: readonly ResizeTarget[],
  specs: readonly JobSpec[],
  predictions: readonly PredictionResult[],
  settings: ResizeSettings,
  log: SchedulerLogger,
): AdmissionResize {
  const { policy } = settings;
  const out: AdmissionResize = { ops: [], summary: [], records: [], shadow: false };
  targets.forEach((target, i) => {
    const prediction = predictions[i];
    const mode: PredictionMode =
      settings.mode === "shadow" || prediction.mode === "shadow" ? "shadow" : "live";
    const decision = applyPolicy(prediction.resources, specs[i], policy, {
      mode,
      coresGranularity: 0.001,
      memoryGranularityBytes: settings.memoryGranularityBytes,
    });
    const plan = planWorkload(target.workload, target.main, decision, settings.initContainers);
    for (const u of plan.unwritable)
      log.info({ workload: target.workload.id, ...u }, "jobsight admission: resource not written");
    if (plan.changes.length === 0) return;
    const written: PolicyDecision = { ...decision, resources: plan.written };
    out.records.push(
      ...auditRecordsFor(written, {
        cluster: settings.cluster,
        actor: "kubernetes-admission",
        user: specs[i].user,
        submittedBy: request.userInfo?.username,
        job: `${target.workload.id} container=${target.main.name}`,
        modelVersion: prediction.modelVersion,
        policy: policy.name,
        predictionId: prediction.id,
        at: settings.at,
      }),
    );
    if (mode === "shadow") {
      out.shadow = true;
      return;
    }
    out.ops.push(
      ...plan.ops,
      ...changesAnnotationOps(request.object, target.workload, {
        modelVersion: prediction.modelVersion,
        policy: policy.name,
        changes: plan.changes,
      }),
    );
    out.summary.push(describeChanges(target.workload, plan.changes));
  });
  return out;
}
