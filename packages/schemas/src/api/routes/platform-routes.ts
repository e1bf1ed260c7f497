import { Type } from "@sinclair/typebox";
import { Cluster } from "../../jobs/cluster.js";
import { AdmissionReviewRequest, AdmissionReviewResponse } from "../../policy/admission-review.js";
import { Policy } from "../../policy/policy.js";
import { PolicyAuditPage, PolicyAuditQuery } from "../../policy/policy-audit.js";
import { PolicySimulation, PolicySimulationRequest } from "../../policy/policy-simulation.js";
import { SlurmAdviceRequest } from "../../policy/slurm-advice.js";
import type { ApiRoute } from "./api-route.js";

/** The platform team's controls: policy, admission and scheduler hooks, and clusters. */
export const platformRoutes: ApiRoute[] = [
  {
    method: "GET",
    path: "/v1/policy",
    operationId: "getPolicy",
    summary: "The active policy",
    tag: "policy",
    roles: ["platform", "scheduler"],
    response: Policy,
  },
  {
    method: "PUT",
    path: "/v1/policy",
    operationId: "putPolicy",
    summary: "Replace the active policy",
    tag: "policy",
    roles: ["platform"],
    body: Policy,
    response: Policy,
  },
  {
    method: "POST",
    path: "/v1/policy/simulate",
    operationId: "simulatePolicy",
    summary: "What a policy would have changed on the predictions recorded over a period",
    tag: "policy",
    roles: ["platform"],
    body: PolicySimulationRequest,
    response: PolicySimulation,
  },
  {
    method: "GET",
    path: "/v1/policy/audit",
    operationId: "listPolicyAudit",
    summary:
      "Changes applied under the policy (who, what, before, after, model, limiting rule), newest first",
    tag: "policy",
    roles: ["platform"],
    query: PolicyAuditQuery,
    response: PolicyAuditPage,
  },
  {
    method: "POST",
    path: "/v1/admission/mutate",
    operationId: "admitKubernetesObject",
    summary:
      "Kubernetes mutating admission webhook: sets resources under the policy; always allowed, unchanged on any failure",
    tag: "schedulers",
    roles: ["scheduler"],
    // The API server appends its deadline to every webhook URL (?timeout=3s).
    query: Type.Object(
      {
        timeout: Type.Optional(
          Type.String({
            pattern: "^[0-9]+(ms|s|m)$",
            description: "The API server's deadline for this call (the webhook's timeoutSeconds), e.g. 3s.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    body: AdmissionReviewRequest,
    response: AdmissionReviewResponse,
  },
  {
    method: "POST",
    path: "/v1/schedulers/slurm/advice",
    operationId: "adviseSlurmSubmission",
    summary:
      "Options to set on a SLURM submission under the policy (text/plain key=value lines for the Lua filters)",
    tag: "schedulers",
    roles: ["scheduler"],
    body: SlurmAdviceRequest,
    response: null,
    produces: ["text/plain"],
  },
  {
    method: "GET",
    path: "/v1/clusters",
    operationId: "listClusters",
    summary: "Registered clusters",
    tag: "clusters",
    roles: ["platform"],
    response: Type.Object({ clusters: Type.Array(Cluster) }, { additionalProperties: false }),
  },
  {
    method: "POST",
    path: "/v1/clusters",
    operationId: "registerCluster",
    summary: "Register a cluster",
    tag: "clusters",
    roles: ["platform"],
    body: Cluster,
    response: Cluster,
    successStatus: 201,
  },
];
