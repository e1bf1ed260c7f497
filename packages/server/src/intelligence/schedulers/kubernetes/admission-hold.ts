import type { Policy } from "@jobsight/schemas";
import type { HoldJudge } from "../../alerts/actions/submission-hold.js";
import type { SchedulerLogger } from "../predict-function.js";
import { withDeadline } from "../with-deadline.js";
import {
  type AdmissionRequest,
  type AdmissionReviewResponse,
  admissionReviewResponse,
} from "./admission-review.js";
import { namespaceAllowed, namespaceOf } from "./changes-annotation.js";
import { isObject, type JsonPatchOperation, setMember, valueAt } from "./json-patch.js";
import { jobSpecOf, mainContainer } from "./pod-job-spec.js";
import { podWorkloads } from "./pod-workloads.js";

/** The annotation on a held Job or Pod: why it is held and how to confirm it. */
export const HOLD_ANNOTATION = "jobsight.io/hold";

/** The scheduling gate that keeps a held Pod from being scheduled. */
export const HOLD_GATE = "jobsight.io/hold";

/** What the webhook adds to hold one object, and the warning its submitter sees. */
export type AdmissionHold = { ops: JsonPatchOperation[]; warning: string };

const q = (s: string) => s.replace(/[^\w.-]/g, "");

/**
 * Whether the object is a submission a person made, which can wait for confirmation: a Job
 * (`spec.suspend`, GA since Kubernetes 1.24) or a bare Pod (`spec.schedulingGates`, GA since 1.30),
 * neither created by a controller. A CronJob's Jobs, a Job's Pods and Argo's pods are not held:
 * their owner was the submission, and holding each copy would hold the same work many times.
 */
function holdable(kind: string, object: Record<string, unknown>): boolean {
  if (kind !== "Job" && kind !== "Pod") return false;
  const owners = valueAt(object, ["metadata", "ownerReferences"]);
  if (Array.isArray(owners) && owners.some((o) => isObject(o) && o.controller === true)) return false;
  return valueAt(object, ["metadata", "annotations", HOLD_ANNOTATION]) === undefined;
}

/**
 * The operations that admit a Job suspended, or a Pod behind the `jobsight.io/hold` scheduling
 * gate, with the `jobsight.io/hold` annotation saying why and the command that confirms it.
 *
 * @example
 * ```ts
 * holdOps("Job", "ml", "train", job, "3 of your train jobs were killed for memory");
 * // [{ op: "add", path: "/spec/suspend", value: true }, { op: "add", path: "/metadata/annotations", … }]
 * ```
 */
export function holdOps(
  kind: "Job" | "Pod",
  namespace: string | undefined,
  name: string | undefined,
  object: Record<string, unknown>,
  reason: string,
): AdmissionHold {
  const ns = namespace ? ` -n ${q(namespace)}` : "";
  const target = name ? q(name) : "<name>";
  let ops: JsonPatchOperation[];
  let confirm: string;
  if (kind === "Job") {
    ops = [{ op: "add", path: "/spec/suspend", value: true }];
    confirm = `kubectl patch job ${target}${ns} --type=merge -p '{"spec":{"suspend":false}}'`;
  } else {
    // Gates may only be added at creation and only removed later: append ours to any already there.
    const gates = valueAt(object, ["spec", "schedulingGates"]);
    const index = Array.isArray(gates) ? gates.length : 0;
    ops = Array.isArray(gates)
      ? [{ op: "add", path: "/spec/schedulingGates/-", value: { name: HOLD_GATE } }]
      : [{ op: "add", path: "/spec/schedulingGates", value: [{ name: HOLD_GATE }] }];
    confirm = `kubectl patch pod ${target}${ns} --type=json -p '[{"op":"remove","path":"/spec/schedulingGates/${index}"}]'`;
  }
  const note = `Held by jobsight: ${reason}. Raise its memory request and submit again, or run it as it is: ${confirm}`;
  ops.push(...setMember(object, ["metadata", "annotations"], HOLD_ANNOTATION, note));
  return { ops, warning: `jobsight held ${kind} ${target}: ${reason}; to run it as it is: ${confirm}` };
}

/**
 * Judges whether to hold one admission (a repeat offender's Job or Pod) and returns what to add,
 * or `undefined` to let it through. Never rejects: an error or the deadline lets it through, as
 * the rest of the webhook fails open.
 */
export async function admissionHold(
  hold: HoldJudge,
  request: AdmissionRequest,
  context: { cluster: string; policy: Policy; deadlineMs: number },
  log: SchedulerLogger,
): Promise<AdmissionHold | undefined> {
  const kind = request.kind.kind;
  if (request.operation !== "CREATE" || !holdable(kind, request.object)) return undefined;
  const namespace = namespaceOf(request.namespace, request.object);
  if (!namespaceAllowed(context.policy, namespace)) return undefined;
  const optOutLabel = context.policy.optOutLabel;
  const [workload] = podWorkloads({
    kind,
    namespace: request.namespace,
    name: request.name,
    object: request.object,
  });
  const main = workload && mainContainer(workload);
  if (!workload || !main) return undefined;
  if (optOutLabel && workload.labels[optOutLabel] === "false") return undefined;
  const spec = jobSpecOf(workload, main, {
    cluster: context.cluster,
    namespace,
    requestUser: request.userInfo?.username,
  });
  try {
    const decision = await withDeadline(context.deadlineMs, () =>
      hold(spec, context.cluster, { scheduler: "kubernetes", record: !request.dryRun }),
    );
    if (!decision?.hold) return undefined;
    // A generateName'd object has no name yet: the command then says `<name>`.
    const name = request.name || undefined;
    return holdOps(
      kind as "Job" | "Pod",
      namespace,
      name,
      request.object,
      decision.reason ?? decision.message,
    );
  } catch (error) {
    log.warn(
      { uid: request.uid, err: String(error) },
      "jobsight admission: hold not judged, admitted without it",
    );
    return undefined;
  }
}

/**
 * The answer with the hold added: its operations after any resize's, its warning after theirs
 * (an answer admitted unchanged keeps its status message).
 */
export function withHold(body: AdmissionReviewResponse, hold: AdmissionHold): AdmissionReviewResponse {
  const response = body.response;
  if (!response) return body;
  const earlier: JsonPatchOperation[] = response.patch
    ? JSON.parse(Buffer.from(response.patch, "base64").toString())
    : [];
  const warning = hold.warning.length <= 512 ? hold.warning : `${hold.warning.slice(0, 511)}…`;
  return admissionReviewResponse(body.apiVersion, response.uid, {
    patch: [...earlier, ...hold.ops],
    warnings: [...(response.warnings ?? []), warning],
    ...(response.status?.message ? { message: response.status.message } : {}),
  });
}
