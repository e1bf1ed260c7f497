import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import type { PolicyAuditRecord } from "../../../../data-plane/stores/policy-audit-record.js";
import { KubernetesAdmission, type KubernetesAdmissionOptions } from "../../kubernetes-admission.js";
import type { PredictFunction } from "../../predict-function.js";
import type { AdmissionReviewResponse } from "../admission-review.js";
import { CHANGES_ANNOTATION } from "../changes-annotation.js";
import type { JsonPatchOperation } from "../json-patch.js";
import { admissionReview, type Json } from "./admission-fixtures.js";
import { applyJsonPatch } from "./apply-json-patch.js";

// A webhook with a fake predictor and an in-memory audit, and a way to send it a review and
// see the object as the API server would store it after the patch.

export const GiB = 2 ** 30;
export const MiB = 2 ** 20;

export const rec = (
  resource: ResourcePrediction["resource"],
  value: number,
  confidence = 0.97,
): ResourcePrediction => ({
  resource,
  status: "ok",
  unit: resource === "memory" ? "bytes" : resource === "gpus" ? "devices" : "cores",
  value,
  confidence,
  evidence: { group: "user=alice", jobs: 50 },
});

export function setup(
  resources: ResourcePrediction[] | ((spec: JobSpec) => ResourcePrediction[]),
  options: Partial<KubernetesAdmissionOptions> = {},
) {
  const specs: JobSpec[] = [];
  const audit: PolicyAuditRecord[] = [];
  const predict: PredictFunction = async (spec) => {
    specs.push(spec);
    return {
      modelVersion: "m-12",
      id: `p-${specs.length}`,
      resources: typeof resources === "function" ? resources(spec) : resources,
    };
  };
  const admission = new KubernetesAdmission({
    cluster: "k8s1",
    predict,
    policy: { name: "default" },
    audit: { record: async (r) => void audit.push(...r) },
    clock: () => new Date("2026-12-01T10:00:00Z"),
    ...options,
  });
  return { admission, specs, audit };
}

export async function review(
  admission: KubernetesAdmission,
  object: Json,
  options: Parameters<typeof admissionReview>[1] = {},
) {
  const result = await admission.review(admissionReview(object, options));
  const body = result.body as AdmissionReviewResponse;
  const ops: JsonPatchOperation[] = body.response?.patch
    ? JSON.parse(Buffer.from(body.response.patch, "base64").toString())
    : [];
  const patched = applyJsonPatch(object, ops) as Json;
  return { result, body, ops, patched };
}

export const changesOf = (metadata: Json) => JSON.parse(metadata.annotations[CHANGES_ANNOTATION]);
