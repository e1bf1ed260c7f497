/** The type of one option's value; a `list` is comma-separated in flags and variables, an array in JSON. */
export type OptionType = "string" | "integer" | "number" | "boolean" | "enum" | "list";

/** One configuration option: its place in the config file, its flag, its variable, its default. */
export type OptionSpec = {
  /** Dotted path in the configuration object and JSON file, e.g. `spool.dir`. */
  path: string;
  flag: string;
  env: string;
  type: OptionType;
  values?: readonly string[];
  /** Default value; `undefined` means unset unless given. */
  default?: string | number | boolean;
  description: string;
  /** Lower bound for numbers. */
  min?: number;
  /** Hidden from `--help` where secret. */
  secret?: boolean;
};

// The one table of options: --help, flag parsing, environment parsing and the README table are all
// made from it, so they cannot drift apart.
export const optionSpecs: readonly OptionSpec[] = [
  {
    path: "mode",
    flag: "--mode",
    env: "JOBSIGHT_MODE",
    type: "enum",
    values: ["node", "slurm-controller", "kubernetes"],
    default: "node",
    description:
      "What this collector watches: this node's jobs, the SLURM controller, or the Kubernetes cluster.",
  },
  {
    path: "cluster",
    flag: "--cluster",
    env: "JOBSIGHT_CLUSTER",
    type: "string",
    description: "Registered cluster id (lower-case letters, digits, '-', '_'). Required.",
  },
  {
    path: "node",
    flag: "--node",
    env: "JOBSIGHT_NODE",
    type: "string",
    description: "This node's name. Default: the host name.",
  },
  {
    path: "intervalSeconds",
    flag: "--interval",
    env: "JOBSIGHT_INTERVAL_SECONDS",
    type: "number",
    default: 10,
    min: 1,
    description: "Seconds between collection rounds (node) or polls (controller).",
  },
  {
    path: "cgroup.root",
    flag: "--cgroup-root",
    env: "JOBSIGHT_CGROUP_ROOT",
    type: "string",
    default: "/sys/fs/cgroup",
    description: "Where the cgroup hierarchy is mounted.",
  },
  {
    path: "cgroup.version",
    flag: "--cgroup-version",
    env: "JOBSIGHT_CGROUP_VERSION",
    type: "enum",
    values: ["auto", "v2", "v1", "none"],
    default: "auto",
    description: "cgroup layout; 'none' attributes processes to jobs through /proc.",
  },
  {
    path: "procRoot",
    flag: "--proc-root",
    env: "JOBSIGHT_PROC_ROOT",
    type: "string",
    default: "/proc",
    description: "Where procfs is mounted.",
  },
  {
    path: "processes.top",
    flag: "--top-processes",
    env: "JOBSIGHT_TOP_PROCESSES",
    type: "integer",
    default: 5,
    min: 0,
    description: "Top memory holders named per job (plus every process in state D); 0 turns it off.",
  },
  {
    path: "gpu.mode",
    flag: "--gpu",
    env: "JOBSIGHT_GPU",
    type: "enum",
    values: ["auto", "on", "off"],
    default: "auto",
    description: "Watch GPUs with nvidia-smi: auto (if present), on, off.",
  },
  {
    path: "gpu.command",
    flag: "--nvidia-smi",
    env: "JOBSIGHT_NVIDIA_SMI",
    type: "string",
    default: "nvidia-smi",
    description:
      "The nvidia-smi command (with --gpu-source dcgm, run as -L and -q -x when the MIG layout changes, to learn each MIG instance's UUID).",
  },
  {
    path: "gpu.source",
    flag: "--gpu-source",
    env: "JOBSIGHT_GPU_SOURCE",
    type: "enum",
    values: ["nvidia-smi", "dcgm", "rocm-smi", "amd-smi"],
    default: "nvidia-smi",
    description:
      "Where GPU readings come from: nvidia-smi, a local NVIDIA dcgm-exporter (MIG instances as their own devices, tied to pods by its Kubernetes mapping; no per-process view), AMD's rocm-smi, or AMD's amd-smi (ROCm 6+; each partition of a split GPU as its own device).",
  },
  {
    path: "gpu.dcgmUrl",
    flag: "--dcgm-url",
    env: "JOBSIGHT_DCGM_URL",
    type: "string",
    default: "http://127.0.0.1:9400/metrics",
    description: "dcgm-exporter's metrics endpoint (with --gpu-source dcgm).",
  },
  {
    path: "gpu.rocmSmi",
    flag: "--rocm-smi",
    env: "JOBSIGHT_ROCM_SMI",
    type: "string",
    default: "rocm-smi",
    description: "The rocm-smi command (with --gpu-source rocm-smi).",
  },
  {
    path: "gpu.amdSmi",
    flag: "--amd-smi",
    env: "JOBSIGHT_AMD_SMI",
    type: "string",
    default: "amd-smi",
    description: "The amd-smi command (with --gpu-source amd-smi).",
  },
  {
    path: "prometheus.cadvisorUrl",
    flag: "--cadvisor-url",
    env: "JOBSIGHT_CADVISOR_URL",
    type: "string",
    description:
      "cAdvisor's metrics endpoint: the kubelet's authenticated https://NODE_IP:10250/metrics/cadvisor (with the token and CA below), or its read-only http://127.0.0.1:10255/metrics/cadvisor where enabled. Scraped each round (node mode) for each pod's CPU and memory in place of its cgroup; a failed scrape falls back to the cgroups. Off when unset.",
  },
  {
    path: "prometheus.cadvisorTokenFile",
    flag: "--cadvisor-token-file",
    env: "JOBSIGHT_CADVISOR_TOKEN_FILE",
    type: "string",
    description:
      "File of the bearer token sent to the kubelet with each cAdvisor scrape, e.g. the pod's service account token /var/run/secrets/kubernetes.io/serviceaccount/token, its account granted RBAC get on nodes/metrics. Re-read before every scrape (the kubelet rotates it); unreadable at start is a configuration error, later the last token read is sent. Unset: no token.",
  },
  {
    path: "prometheus.cadvisorCaFile",
    flag: "--cadvisor-ca-file",
    env: "JOBSIGHT_CADVISOR_CA_FILE",
    type: "string",
    description:
      "PEM file of the CA(s) that sign the kubelet's serving certificate, for an https cAdvisor URL (the cluster CA /var/run/secrets/kubernetes.io/serviceaccount/ca.crt where kubelets' serving certificates are issued by it). Unset: the CAs Node.js trusts (its bundled ones and NODE_EXTRA_CA_CERTS).",
  },
  {
    path: "prometheus.cadvisorInsecureSkipVerify",
    flag: "--cadvisor-insecure-skip-tls-verify",
    env: "JOBSIGHT_CADVISOR_INSECURE_SKIP_TLS_VERIFY",
    type: "boolean",
    default: false,
    description:
      "Accept any certificate from an https cAdvisor URL, for kubelets with self-signed serving certificates; logged as a warning at start. Anyone able to answer on the kubelet's address could then read the token and feed the collector figures.",
  },
  {
    path: "prometheus.nodeExporterUrl",
    flag: "--node-exporter-url",
    env: "JOBSIGHT_NODE_EXPORTER_URL",
    type: "string",
    description:
      "node_exporter's metrics endpoint (e.g. http://127.0.0.1:9100/metrics), scraped each round (node mode) while one job runs alone on the node: the node's CPU, memory, CPU pressure and load become that job's. Nothing is recorded per job on shared nodes. Off when unset.",
  },
  {
    path: "kubelet.podResourcesSocket",
    flag: "--pod-resources-socket",
    env: "JOBSIGHT_POD_RESOURCES_SOCKET",
    type: "string",
    default: "/var/lib/kubelet/pod-resources/kubelet.sock",
    description:
      "The kubelet's PodResources socket (node mode on Kubernetes nodes): each pod gets the GPUs the kubelet gave it, idle ones included. Missing or failing: pods get the GPUs their processes use.",
  },
  {
    path: "kubelet.podLogsDir",
    flag: "--pod-logs-dir",
    env: "JOBSIGHT_POD_LOGS_DIR",
    type: "string",
    default: "/var/log/pods",
    description:
      "The kubelet's pod log folder (node mode on Kubernetes nodes): its `<namespace>_<name>_<uid>` folders tie the pods PodResources names to their cgroups.",
  },
  {
    path: "progress.enabled",
    flag: "--progress",
    env: "JOBSIGHT_PROGRESS",
    type: "boolean",
    default: true,
    description:
      "Measure each job's progress (node mode): the file named by `$JOBSIGHT_PROGRESS_FILE` in the job's environment, else `progress.fileName` in its working directory, else progress lines in the tail of its output files. The walltime-overrun alert projects from it.",
  },
  {
    path: "progress.fileName",
    flag: "--progress-file-name",
    env: "JOBSIGHT_PROGRESS_FILE_NAME",
    type: "string",
    default: ".jobsight-progress",
    description:
      'The progress file looked for in a job\'s working directory: one line, `<done>/<total> [unit]`, `<n>%`, a fraction in [0, 1] or `{"done":…,"total":…,"unit":…}`.',
  },
  {
    path: "progress.output",
    flag: "--progress-output",
    env: "JOBSIGHT_PROGRESS_OUTPUT",
    type: "boolean",
    default: true,
    description:
      "Look for progress lines in the last 8 KiB of the files a job's stdout and stderr go to (tqdm bars, `step 1200/5000`, `Epoch 3/10`).",
  },
  {
    path: "progress.outputPattern",
    flag: "--progress-pattern",
    env: "JOBSIGHT_PROGRESS_PATTERN",
    type: "string",
    description:
      "A regular expression for the site's own progress lines, used instead of the built-in ones; it names `(?<done>…)` and `(?<total>…)`, or `(?<percent>…)`, and may name `(?<unit>…)`.",
  },
  {
    path: "kernelLog.enabled",
    flag: "--kmsg",
    env: "JOBSIGHT_KMSG",
    type: "boolean",
    default: true,
    description: "Read GPU Xid faults and OOM kills from the kernel log.",
  },
  {
    path: "kernelLog.path",
    flag: "--kmsg-path",
    env: "JOBSIGHT_KMSG_PATH",
    type: "string",
    default: "/dev/kmsg",
    description: "The kernel log device.",
  },
  {
    path: "spool.dir",
    flag: "--spool-dir",
    env: "JOBSIGHT_SPOOL_DIR",
    type: "string",
    default: "/var/lib/jobsight/spool",
    description: "Durable spool directory.",
  },
  {
    path: "spool.maxMegabytes",
    flag: "--spool-max-mb",
    env: "JOBSIGHT_SPOOL_MAX_MB",
    type: "integer",
    default: 256,
    min: 1,
    description: "Spool size cap; past it the oldest usage samples are dropped.",
  },
  {
    path: "backend.url",
    flag: "--url",
    env: "JOBSIGHT_URL",
    type: "string",
    description: "Data plane base URL (REST ingest). Without it, data stays in the spool.",
  },
  {
    path: "backend.otlpUrl",
    flag: "--otlp-url",
    env: "JOBSIGHT_OTLP_URL",
    type: "string",
    description:
      "OTLP/gRPC endpoint (the data plane's :4317 or the site's OpenTelemetry Collector): usage samples go there as OTLP metrics, job records and events still to --url.",
  },
  {
    path: "backend.otlpNames",
    flag: "--otlp-names",
    env: "JOBSIGHT_OTLP_NAMES",
    type: "enum",
    values: ["conventions", "legacy"],
    default: "conventions",
    description:
      "Metric and attribute names of the OTLP export: the OpenTelemetry semantic conventions' (container.*, hw.*, process.*; jobsight.* where none exists), or the jobsight.* names of release 0.1 for dashboards not yet moved over (this compatibility goes in the next release). Jobsight's receiver reads both.",
  },
  {
    path: "backend.token",
    flag: "--token",
    env: "JOBSIGHT_TOKEN",
    type: "string",
    secret: true,
    description: "Bearer token (prefer --token-file).",
  },
  {
    path: "backend.tokenFile",
    flag: "--token-file",
    env: "JOBSIGHT_TOKEN_FILE",
    type: "string",
    description: "File holding the bearer token.",
  },
  {
    path: "backend.batchRecords",
    flag: "--batch-records",
    env: "JOBSIGHT_BATCH_RECORDS",
    type: "integer",
    default: 500,
    min: 1,
    description: "Records per batch sent.",
  },
  {
    path: "health.enabled",
    flag: "--health",
    env: "JOBSIGHT_HEALTH",
    type: "boolean",
    default: true,
    description: "Serve GET /healthz, GET /metrics and the epilog endpoint.",
  },
  {
    path: "health.port",
    flag: "--health-port",
    env: "JOBSIGHT_HEALTH_PORT",
    type: "integer",
    default: 9465,
    min: 0,
    description: "Port of the health endpoint; 0 picks a free port (logged at start).",
  },
  {
    path: "health.host",
    flag: "--health-host",
    env: "JOBSIGHT_HEALTH_HOST",
    type: "string",
    default: "127.0.0.1",
    description: "Address the health endpoint listens on.",
  },
  {
    path: "log.level",
    flag: "--log-level",
    env: "JOBSIGHT_LOG_LEVEL",
    type: "enum",
    values: ["debug", "info", "warn", "error"],
    default: "info",
    description: "Lowest log level written (JSON lines on stderr).",
  },
  {
    path: "slurm.squeueCommand",
    flag: "--squeue",
    env: "JOBSIGHT_SQUEUE",
    type: "string",
    default: "squeue",
    description: "The squeue command (controller mode).",
  },
  {
    path: "slurm.sacctCommand",
    flag: "--sacct",
    env: "JOBSIGHT_SACCT",
    type: "string",
    default: "sacct",
    description: "The sacct command (controller mode).",
  },
  {
    path: "slurm.lookbackMinutes",
    flag: "--sacct-lookback",
    env: "JOBSIGHT_SACCT_LOOKBACK_MINUTES",
    type: "integer",
    default: 60,
    min: 1,
    description: "How far back sacct looks for ended jobs at start.",
  },
  {
    path: "kubernetes.kubeconfig",
    flag: "--kubeconfig",
    env: "JOBSIGHT_KUBECONFIG",
    type: "string",
    description:
      "Kubeconfig file (kubernetes mode). Default: in-cluster service account when run in a pod, else $KUBECONFIG or ~/.kube/config.",
  },
  {
    path: "kubernetes.context",
    flag: "--kube-context",
    env: "JOBSIGHT_KUBE_CONTEXT",
    type: "string",
    description: "Kubeconfig context to use (kubernetes mode). Default: the file's current context.",
  },
  {
    path: "kubernetes.inCluster",
    flag: "--in-cluster",
    env: "JOBSIGHT_IN_CLUSTER",
    type: "boolean",
    default: false,
    description: "Use the pod's service account token and KUBERNETES_SERVICE_HOST (kubernetes mode).",
  },
  {
    path: "kubernetes.namespaces",
    flag: "--namespaces",
    env: "JOBSIGHT_NAMESPACES",
    type: "list",
    description: "Comma-separated namespaces whose pods are watched (kubernetes mode). Default: all.",
  },
  {
    path: "kubernetes.labelSelector",
    flag: "--label-selector",
    env: "JOBSIGHT_LABEL_SELECTOR",
    type: "string",
    description: "Only pods matching this label selector, e.g. 'app=train,tier!=web' (kubernetes mode).",
  },
  {
    path: "kubernetes.events",
    flag: "--kube-events",
    env: "JOBSIGHT_KUBE_EVENTS",
    type: "boolean",
    default: true,
    description:
      "Watch Kubernetes Events: node OOM kills become node events; evictions, preemptions and scheduling failures explain pod outcomes.",
  },
];
