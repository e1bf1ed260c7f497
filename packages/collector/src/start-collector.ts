import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import type { CollectorConfig } from "./config/collector-config.js";
import { CollectorMetrics } from "./health/collector-metrics.js";
import { HealthServer } from "./health/health-server.js";
import type { Logger } from "./log/logger.js";
import { JobProgressReader } from "./modes/job-progress-reader.js";
import type { KubernetesCluster } from "./modes/kubernetes/kubernetes-cluster.js";
import { NodeMode } from "./modes/node-mode.js";
import { SlurmController } from "./modes/slurm-controller.js";
import { gpuSourceName, SourceLimits } from "./modes/source-limits.js";
import { HttpJsonSink } from "./ship/http-json-sink.js";
import { Shipper } from "./ship/shipper.js";
import type { Sink } from "./ship/sink.js";
import { detectCgroupVersion } from "./sources/cgroup-layout.js";
import { createGpuSource } from "./sources/gpu/create-gpu-source.js";
import type { GpuSource } from "./sources/gpu/gpu-source.js";
import { KernelLog } from "./sources/kernel-log.js";
import { ProcReader } from "./sources/proc-reader.js";
import { CadvisorSource } from "./sources/prometheus/cadvisor.js";
import { NodeExporterSource } from "./sources/prometheus/node-exporter.js";
import { DiskSpool } from "./spool/disk-spool.js";

/** A running collector. */
export type RunningCollector = {
  /** Port of the health endpoint (undefined when turned off). */
  healthPort: number | undefined;
  report(): Record<string, unknown> & { status: string };
  /** Stop collecting, try to ship what is spooled for up to `graceMs`, release everything. */
  stop(graceMs?: number): Promise<void>;
};

/** Options of {@link startCollector}. */
export type StartCollectorOptions = {
  config: CollectorConfig;
  /**
   * Kubernetes client configuration for kubernetes mode: a `KubeConfig` of
   * `@kubernetes/client-node` (typed loosely so that this entry point's types do not need that
   * package's). @default kubeConfigFor(config.kubernetes)
   */
  kubeConfig?: object;
  logger: Logger;
  /** Version reported by /healthz. @default "0.0.0" */
  version?: string;
  /** Replace the sink built from the configuration (the lead wires the OTLP sink here). @default HttpJsonSink or none */
  sink?: Sink;
};

function readBootId(procRoot: string): string {
  try {
    return readFileSync(join(procRoot, "sys", "kernel", "random", "boot_id"), "utf8").trim();
  } catch {
    return "unknown";
  }
}

/**
 * Wire a collector from its configuration: spool, shipper, the mode's sources and loop, and the
 * health endpoint. Used by the `jobsight-collector` command and by tests.
 *
 * @example
 * ```ts
 * const running = await startCollector({ config: loadConfig(), logger: createLogger() });
 * process.on("SIGTERM", () => running.stop());
 * ```
 */
export async function startCollector(options: StartCollectorOptions): Promise<RunningCollector> {
  const { config, logger: log } = options;
  const started = Date.now();
  // Loaded only in kubernetes mode: the Kubernetes client alone costs about 75 MB and a second to
  // load, which node mode must not pay. Before anything is opened: a bad kubeconfig is a
  // configuration error, reported as such.
  const k8s =
    config.mode === "kubernetes"
      ? {
          ...(await import("./modes/kubernetes/kubernetes-cluster.js")),
          kubeConfig:
            (options.kubeConfig as KubeConfig | undefined) ??
            (await import("./config/kube-config.js")).kubeConfigFor(config.kubernetes),
        }
      : undefined;
  // Whatever can fail on a bad setting or file is read before the spool is opened.
  const token =
    !options.sink && config.backend.url && config.backend.tokenFile
      ? readFileSync(config.backend.tokenFile, "utf8").trim()
      : config.backend.token;
  let node: NodeMode | undefined;
  let cadvisor: CadvisorSource | undefined;
  let nodeExporter: NodeExporterSource | undefined;
  if (config.mode === "node") {
    const { cadvisorUrl, nodeExporterUrl } = config.prometheus;
    if (cadvisorUrl)
      cadvisor = new CadvisorSource({
        url: cadvisorUrl,
        tokenFile: config.prometheus.cadvisorTokenFile,
        caFile: config.prometheus.cadvisorCaFile,
        insecureSkipVerify: config.prometheus.cadvisorInsecureSkipVerify,
        logger: log.child({ part: "cadvisor" }),
        onUnavailable: (m) => node?.sourceUnavailable("cadvisor", m),
      });
    if (nodeExporterUrl)
      nodeExporter = new NodeExporterSource({
        url: nodeExporterUrl,
        logger: log.child({ part: "node-exporter" }),
        onUnavailable: (m) => node?.sourceUnavailable("node_exporter", m),
      });
  }
  const spool = await DiskSpool.open({
    dir: config.spool.dir,
    maxBytes: config.spool.maxMegabytes * 1024 * 1024,
    logger: log,
  });
  let sink = options.sink;
  if (!sink && config.backend.url) {
    sink = config.backend.otlpUrl
      ? new (await import("./ship/otlp-sink.js")).OtlpSink({
          otlpUrl: config.backend.otlpUrl,
          restUrl: config.backend.url,
          token,
          names: config.backend.otlpNames,
        })
      : new HttpJsonSink({ url: config.backend.url, token });
  }
  if (!sink) log.warn("no backend configured: observations stay in the spool", { spool: config.spool.dir });
  const shipper = sink
    ? new Shipper({
        spool,
        sink,
        maxBatchRecords: config.backend.batchRecords,
        logger: log.child({ part: "shipper" }),
      })
    : undefined;
  const intervalMs = config.intervalSeconds * 1000;

  let controller: SlurmController | undefined;
  let kubernetes: KubernetesCluster | undefined;
  let gpus: GpuSource | undefined;
  let kernelLog: KernelLog | undefined;
  const sources: Record<string, string> = {};
  if (config.mode === "node") {
    const proc = new ProcReader({ root: config.procRoot });
    const version =
      config.cgroup.version === "auto" ? detectCgroupVersion(config.cgroup.root) : config.cgroup.version;
    sources.cgroup = version;
    if (config.gpu.mode !== "off") {
      gpus = createGpuSource(config.gpu, {
        intervalMs,
        logger: log.child({ part: "gpu" }),
        onUnavailable: (m) => node?.sourceUnavailable("gpu", m),
      });
    }
    if (config.kernelLog.enabled) {
      kernelLog = new KernelLog({
        cluster: config.cluster,
        node: config.node,
        path: config.kernelLog.path,
        bootId: readBootId(config.procRoot),
        procRoot: config.procRoot,
        statePath: join(config.spool.dir, "kmsg-position.json"),
        logger: log.child({ part: "kmsg" }),
        onUnavailable: (m) => node?.sourceUnavailable("kmsg", m),
      });
    }
    node = new NodeMode({
      cluster: config.cluster,
      node: config.node,
      spool,
      proc,
      cgroupVersion: version,
      cgroupRoot: config.cgroup.root,
      intervalMs,
      topProcesses: config.processes.top,
      gpus,
      cadvisor,
      nodeExporter,
      sourceLimits: new SourceLimits({
        cluster: config.cluster,
        cgroupVersion: version,
        gpu: gpus && { name: gpuSourceName(config.gpu.source), cannotSee: gpus.cannotSee },
        cadvisor,
        nodeExporter,
      }),
      podResourcesSocket: config.kubelet.podResourcesSocket,
      podLogsDir: config.kubelet.podLogsDir,
      kernelLog,
      ...(config.progress.enabled
        ? {
            progress: new JobProgressReader({
              proc,
              fileName: config.progress.fileName,
              output: config.progress.output,
              ...(config.progress.outputPattern !== undefined
                ? { outputPatterns: [{ pattern: new RegExp(config.progress.outputPattern, "g") }] }
                : {}),
              logger: log.child({ part: "progress" }),
            }),
          }
        : {}),
      logger: log.child({ part: "node" }),
    });
    if (version === "none")
      log.info("no cgroups found: attributing processes to jobs through /proc", {
        procRoot: config.procRoot,
      });
    gpus?.start();
    node.start();
  } else if (k8s) {
    const { kubeConfig } = k8s;
    kubernetes = new k8s.KubernetesCluster({
      cluster: config.cluster,
      spool,
      kubeConfig,
      namespaces: config.kubernetes.namespaces,
      labelSelector: config.kubernetes.labelSelector,
      events: config.kubernetes.events,
      logger: log.child({ part: "kubernetes" }),
    });
    sources.kubernetes = kubeConfig.getCurrentCluster()?.server ?? "unknown";
    kubernetes.start();
  } else {
    controller = new SlurmController({
      cluster: config.cluster,
      spool,
      squeueCommand: config.slurm.squeueCommand,
      sacctCommand: config.slurm.sacctCommand,
      intervalMs,
      lookbackMinutes: config.slurm.lookbackMinutes,
      logger: log.child({ part: "slurm" }),
    });
    controller.start();
  }
  shipper?.start();

  const report = () => {
    const ship = shipper?.stats();
    const spoolStats = spool.stats();
    const degraded =
      spoolStats.writeError !== null ||
      (ship?.consecutiveFailures ?? 0) > 0 ||
      (ship?.lagSeconds ?? 0) > 10 * config.intervalSeconds ||
      (kubernetes?.stats().failingWatches ?? 0) > 0;
    if (gpus) sources.gpu = gpus.status;
    if (kernelLog) sources.kmsg = kernelLog.unavailable ? "unavailable" : "running";
    if (cadvisor) sources.cadvisor = cadvisor.status;
    if (nodeExporter) sources.node_exporter = nodeExporter.status;
    return {
      status: degraded ? "degraded" : "ok",
      version: options.version ?? "0.0.0",
      mode: config.mode,
      cluster: config.cluster,
      node: config.node,
      uptimeSeconds: Math.round((Date.now() - started) / 1000),
      lagSeconds: ship?.lagSeconds ?? 0,
      spool: spoolStats,
      shipper: ship ?? null,
      collector: node?.stats() ?? controller?.stats() ?? kubernetes?.stats() ?? null,
      sources,
    };
  };
  let health: HealthServer | undefined;
  let healthPort: number | undefined;
  if (config.health.enabled) {
    health = new HealthServer({
      host: config.health.host,
      port: config.health.port,
      report,
      metrics: await CollectorMetrics.create(report),
      onEpilog: node ? (job) => node!.finalReading(job) : undefined,
      logger: log.child({ part: "health" }),
    });
    healthPort = await health.start();
    log.info("health endpoint listening", { host: config.health.host, port: healthPort });
  }
  log.info("collector started", { mode: config.mode, cluster: config.cluster, node: config.node, sources });

  return {
    healthPort,
    report,
    async stop(graceMs = 5000) {
      await node?.stop();
      await controller?.stop();
      await kubernetes?.stop();
      await gpus?.stop();
      kernelLog?.close();
      if (shipper) {
        // One last pass so a clean shutdown leaves as little as possible behind.
        await Promise.race([shipper.tick(), new Promise((r) => setTimeout(r, graceMs).unref())]);
        await shipper.stop(graceMs);
      }
      await health?.stop();
      await spool.close();
      log.info("collector stopped");
    },
  };
}
