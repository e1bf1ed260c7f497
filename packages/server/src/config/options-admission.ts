import type { OptionSpec } from "./option-spec.js";

/** How the Kubernetes admission webhook knows the API server that calls it. */
export const admissionOptions = [
  {
    path: "admission.clientAuth",
    type: "enum",
    env: "JOBSIGHT_ADMISSION_CLIENT_AUTH",
    values: ["token", "certificate", "network"],
    default: "token",
    description:
      "How POST /v1/admission/mutate knows the Kubernetes API server, which sends no bearer token unless told to: token, a scheduler token (AdmissionConfiguration kubeconfig `token`); certificate, a client certificate chaining to tls.caFile (kubeconfig `client-certificate`); network, none (a NetworkPolicy keeps other callers out). A scheduler token is accepted in every mode; every other route still needs one.",
  },
  {
    path: "admission.cluster",
    type: "string",
    env: "JOBSIGHT_ADMISSION_CLUSTER",
    description:
      "Registered cluster whose API server calls the webhook; required with admission.clientAuth certificate or network (with a token, the token's cluster).",
  },
  {
    path: "admission.clientNames",
    type: "list",
    env: "JOBSIGHT_ADMISSION_CLIENT_NAMES",
    defaultText: "any",
    description:
      "Subject common names accepted from client certificates (admission.clientAuth certificate). Default: any certificate from tls.caFile.",
  },
  {
    path: "admission.sources",
    type: "list",
    env: "JOBSIGHT_ADMISSION_SOURCES",
    defaultText: "any",
    description:
      "Address ranges (CIDR, e.g. 10.0.0.0/24) tokenless webhook calls may come from: the API server's (kubectl get endpoints kubernetes). Default: any address.",
  },
] as const satisfies readonly OptionSpec[];
