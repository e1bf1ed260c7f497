import type { OptionSpec } from "../option-spec.js";

/** Actions under policy on live alerts (`alerts.actions`): off by default, dry-run when on. */
export const alertActionOptions = [
  {
    path: "alerts.actions.enabled",
    type: "boolean",
    env: "JOBSIGHT_ALERTS_ACTIONS_ENABLED",
    default: false,
    description:
      "Act on live alerts under the policy below: cancel jobs whose GPUs stayed idle after the warning and the grace period. Off by default.",
  },
  {
    path: "alerts.actions.dryRun",
    type: "boolean",
    env: "JOBSIGHT_ALERTS_ACTIONS_DRY_RUN",
    default: true,
    description:
      "Only log what would be done (GET /v1/alerts/actions, outcome dry-run) and do nothing; set false to act.",
  },
  {
    path: "alerts.actions.graceMinutes",
    type: "integer",
    env: "JOBSIGHT_ALERTS_ACTIONS_GRACE_MINUTES",
    default: 30,
    min: 1,
    max: 10_080,
    description:
      "Minutes between the gpus-idle warning (the alert firing, sent to the owner) and the cancellation, while the GPUs stay idle.",
  },
  {
    path: "alerts.actions.holdRepeatOffenders",
    type: "boolean",
    env: "JOBSIGHT_ALERTS_ACTIONS_HOLD_REPEAT_OFFENDERS",
    default: false,
    description:
      "Hold the next submission of a repeat offender (alerts.repeatedOom.count jobs of the same shape killed for memory within alerts.repeatedOom.windowHours) for confirmation: SLURM through the submit filters' advice, Kubernetes through the admission webhook (a Job admitted with spec.suspend, a bare Pod behind the jobsight.io/hold scheduling gate).",
  },
  {
    path: "alerts.actions.clusters",
    type: "list",
    env: "JOBSIGHT_ALERTS_ACTIONS_CLUSTERS",
    default: [],
    description: "Only jobs of these clusters are acted on; empty: every cluster.",
  },
  {
    path: "alerts.actions.users",
    type: "list",
    env: "JOBSIGHT_ALERTS_ACTIONS_USERS",
    default: [],
    description:
      "Only these users' jobs are acted on; empty: every user. The policy's optOutUsers are never acted on.",
  },
  {
    path: "alerts.actions.accounts",
    type: "list",
    env: "JOBSIGHT_ALERTS_ACTIONS_ACCOUNTS",
    default: [],
    description:
      "Only jobs of these accounts (SLURM account, Kubernetes namespace) are acted on; empty: every account. The policy's excluded namespaces never are.",
  },
  {
    path: "alerts.actions.partitions",
    type: "list",
    env: "JOBSIGHT_ALERTS_ACTIONS_PARTITIONS",
    default: [],
    description: "Only jobs of these partitions are acted on; empty: every partition.",
  },
  {
    path: "alerts.actions.scancelCommand",
    type: "string",
    env: "JOBSIGHT_ALERTS_ACTIONS_SCANCEL_COMMAND",
    default: "scancel",
    description:
      "The command that cancels a SLURM job, split on spaces (no shell), the job id appended: e.g. `ssh slurm-ctl scancel` where the server is not on a SLURM host.",
  },
  {
    path: "alerts.actions.commandTimeoutMs",
    type: "integer",
    env: "JOBSIGHT_ALERTS_ACTIONS_COMMAND_TIMEOUT_MS",
    default: 10_000,
    min: 100,
    max: 120_000,
    description:
      "Deadline of one cancellation (scancel, or the Kubernetes DELETE); a late one counts as failed.",
  },
  {
    path: "alerts.actions.kubernetes.apiUrl",
    type: "string",
    env: "JOBSIGHT_ALERTS_ACTIONS_KUBERNETES_API_URL",
    description:
      "The Kubernetes API server pods are deleted through (e.g. https://kubernetes.default.svc); unset: Kubernetes jobs are not acted on.",
  },
  {
    path: "alerts.actions.kubernetes.tokenFile",
    type: "string",
    env: "JOBSIGHT_ALERTS_ACTIONS_KUBERNETES_TOKEN_FILE",
    default: "/var/run/secrets/kubernetes.io/serviceaccount/token",
    description:
      "Bearer token of a service account allowed to delete pods (RBAC verb delete on pods), read at each deletion.",
  },
  {
    path: "alerts.actions.kubernetes.caFile",
    type: "string",
    env: "JOBSIGHT_ALERTS_ACTIONS_KUBERNETES_CA_FILE",
    default: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
    description: "CA bundle the API server's certificate is checked against.",
  },
] as const satisfies readonly OptionSpec[];
