/** The collector's configuration after parsing, normalising and validation. */
export type CollectorConfig = {
  mode: "node" | "slurm-controller" | "kubernetes";
  cluster: string;
  node: string;
  intervalSeconds: number;
  cgroup: { root: string; version: "auto" | "v2" | "v1" | "none" };
  procRoot: string;
  processes: { top: number };
  gpu: {
    mode: "auto" | "on" | "off";
    command: string;
    source: "nvidia-smi" | "dcgm" | "rocm-smi" | "amd-smi";
    dcgmUrl: string;
    rocmSmi: string;
    amdSmi: string;
  };
  kubelet: { podResourcesSocket: string; podLogsDir: string };
  /** Prometheus-format endpoints scraped each round in node mode; unset means not scraped. */
  prometheus: {
    cadvisorUrl?: string;
    /** Bearer token file and TLS trust of an https `cadvisorUrl` (the kubelet's port 10250). */
    cadvisorTokenFile?: string;
    cadvisorCaFile?: string;
    cadvisorInsecureSkipVerify: boolean;
    nodeExporterUrl?: string;
  };
  kernelLog: { enabled: boolean; path: string };
  progress: { enabled: boolean; fileName: string; output: boolean; outputPattern?: string };
  spool: { dir: string; maxMegabytes: number };
  backend: {
    url?: string;
    otlpUrl?: string;
    /** Names of the OTLP export (see `@jobsight/otel-bridge`'s `MetricNameSet`). */
    otlpNames: "conventions" | "legacy";
    token?: string;
    tokenFile?: string;
    batchRecords: number;
  };
  health: { enabled: boolean; port: number; host: string };
  log: { level: "debug" | "info" | "warn" | "error" };
  slurm: { squeueCommand: string; sacctCommand: string; lookbackMinutes: number };
  kubernetes: {
    kubeconfig?: string;
    context?: string;
    inCluster: boolean;
    /** Namespaces watched; empty means every namespace. */
    namespaces: string[];
    labelSelector?: string;
    events: boolean;
  };
};
