export type { CollectorConfig } from "./config/collector-config.js";
export type { ConfigSources } from "./config/load-config.js";
export { helpText, loadConfig } from "./config/load-config.js";
export type { OptionSpec, OptionType } from "./config/options.js";
export { optionSpecs } from "./config/options.js";
export type { CollectorErrorCode, ConfigProblem } from "./errors.js";
export {
  CollectorError,
  CommandError,
  ConfigError,
  collectorErrorCodes,
  KubeletError,
  SinkError,
  SourceFormatError,
  SpoolError,
} from "./errors.js";
export type { HealthServerOptions } from "./health/health-server.js";
export { HealthServer } from "./health/health-server.js";
export type { Logger, LoggerOptions, LogLevel } from "./log/logger.js";
export { createLogger, silentLogger } from "./log/logger.js";
export type { NodeModeOptions, NodeModeStats } from "./modes/node-mode.js";
export { NodeMode } from "./modes/node-mode.js";
export type { ScrapedSources } from "./modes/scraped-usage.js";
export type { SlurmControllerOptions, SlurmControllerStats } from "./modes/slurm-controller.js";
export { SlurmController } from "./modes/slurm-controller.js";
export type { SlurmRecord } from "./modes/slurm-records.js";
export { recordFromSacct, recordFromSqueue } from "./modes/slurm-records.js";
export type { BackoffOptions } from "./ship/backoff.js";
export { Backoff } from "./ship/backoff.js";
export type { HttpJsonSinkOptions } from "./ship/http-json-sink.js";
export { HttpJsonSink } from "./ship/http-json-sink.js";
export type { OtlpSinkOptions } from "./ship/otlp-sink.js";
export { OtlpSink } from "./ship/otlp-sink.js";
export type { ShipperOptions, ShipperStats } from "./ship/shipper.js";
export { Shipper } from "./ship/shipper.js";
export type { ShipBatch, Sink, SinkResult } from "./ship/sink.js";
export type { CgroupJobIdentity } from "./sources/cgroup-job-path.js";
export { jobFromCgroupPath, jobFromProcCgroup } from "./sources/cgroup-job-path.js";
export type { CgroupVersion } from "./sources/cgroup-layout.js";
export { detectCgroupVersion } from "./sources/cgroup-layout.js";
export type { CgroupReader, CgroupUsage } from "./sources/cgroup-usage.js";
export type { CgroupV1DiscoveryOptions } from "./sources/cgroup-v1-discovery.js";
export { CgroupV1Discovery } from "./sources/cgroup-v1-discovery.js";
export type { CgroupV1ReaderOptions } from "./sources/cgroup-v1-reader.js";
export { CgroupV1Reader } from "./sources/cgroup-v1-reader.js";
export type { CgroupV2DiscoveryOptions, DiscoveredJob } from "./sources/cgroup-v2-discovery.js";
export { CgroupV2Discovery } from "./sources/cgroup-v2-discovery.js";
export type { CgroupV2ReaderOptions } from "./sources/cgroup-v2-reader.js";
export { CgroupV2Reader } from "./sources/cgroup-v2-reader.js";
export type { GpuFault } from "./sources/gpu/gpu-lost.js";
export { parseGpuLost } from "./sources/gpu/gpu-lost.js";
export type { KubernetesGpuAllocationOptions } from "./sources/gpu/kubernetes-gpu-allocation.js";
export { KubernetesGpuAllocation, podGpuRefs } from "./sources/gpu/kubernetes-gpu-allocation.js";
export type { NvidiaSmiOptions, NvidiaSmiStatus } from "./sources/gpu/nvidia-smi.js";
export { NvidiaSmi } from "./sources/gpu/nvidia-smi.js";
export type { ComputeApp, GpuIdentity } from "./sources/gpu/nvidia-smi-csv.js";
export { parseComputeApps, parseGpuLine } from "./sources/gpu/nvidia-smi-csv.js";
export type { GpuRef, SlurmGpuAllocationOptions } from "./sources/gpu/slurm-gpu-allocation.js";
export {
  parseDevicesList,
  parseGpuIdList,
  SlurmGpuAllocation,
} from "./sources/gpu/slurm-gpu-allocation.js";
export type { KernelLogAttribution, KernelLogOptions } from "./sources/kernel-log.js";
export { KernelLog } from "./sources/kernel-log.js";
export type {
  JobProcesses,
  ProcessTotals,
  ProcJobAttributionOptions,
} from "./sources/proc-job-attribution.js";
export { notableProcesses, ProcJobAttribution, summariseProcesses } from "./sources/proc-job-attribution.js";
export type { ProcReaderOptions, ProcStat } from "./sources/proc-reader.js";
export { ProcReader, parseProcStat } from "./sources/proc-reader.js";
export type { CadvisorSourceOptions } from "./sources/prometheus/cadvisor.js";
export { CadvisorSource, cadvisorUsage } from "./sources/prometheus/cadvisor.js";
export type {
  NodeExporterReading,
  NodeExporterSourceOptions,
} from "./sources/prometheus/node-exporter.js";
export { NodeExporterSource, nodeExporterReading } from "./sources/prometheus/node-exporter.js";
export type { PrometheusEndpointStatus } from "./sources/prometheus/prometheus-endpoint.js";
export type { DiskSpoolOptions, SpoolStats } from "./spool/disk-spool.js";
export { DiskSpool } from "./spool/disk-spool.js";
export type { SpoolKind, SpoolRecord } from "./spool/frame.js";
export type { SpoolFs } from "./spool/spool-fs.js";
export type { PendingBatch } from "./spool/spool-state.js";
export type { RunningCollector, StartCollectorOptions } from "./start-collector.js";
export { startCollector } from "./start-collector.js";
