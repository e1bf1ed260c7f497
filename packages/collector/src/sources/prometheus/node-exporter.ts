import type { Logger } from "../../log/logger.js";
import type { CgroupUsage } from "../cgroup-usage.js";
import { PrometheusEndpoint, type PrometheusEndpointStatus } from "./prometheus-endpoint.js";
import type { PromSample } from "./prometheus-text.js";

/** The node-wide figures read from one node_exporter scrape; a figure it does not serve is absent. */
export type NodeExporterReading = {
  /** CPU time spent busy since boot: `node_cpu_seconds_total` over every mode but idle and iowait. */
  cpuSeconds?: number;
  /** `node_memory_MemTotal_bytes` less `node_memory_MemAvailable_bytes`. */
  memoryUsedBytes?: number;
  memoryTotalBytes?: number;
  /** `node_pressure_cpu_waiting_seconds_total`: time some task waited for a core (PSI, kernels ≥ 4.20). */
  cpuWaitingSeconds?: number;
  /** `node_load1`. */
  load1?: number;
};

const IDLE = new Set(["idle", "iowait"]);

/**
 * Read the node's CPU, memory, CPU pressure and load from node_exporter's samples.
 *
 * @example
 * ```ts
 * nodeExporterReading(parsePrometheusText(body).samples).memoryUsedBytes;
 * ```
 */
export function nodeExporterReading(samples: readonly PromSample[]): NodeExporterReading {
  const r: NodeExporterReading = {};
  let available: number | undefined;
  for (const s of samples) {
    if (!Number.isFinite(s.value)) continue;
    switch (s.name) {
      case "node_cpu_seconds_total":
        if (!IDLE.has(s.labels.mode ?? "")) r.cpuSeconds = (r.cpuSeconds ?? 0) + s.value;
        break;
      case "node_memory_MemTotal_bytes":
        r.memoryTotalBytes = s.value;
        break;
      case "node_memory_MemAvailable_bytes":
        available = s.value;
        break;
      case "node_pressure_cpu_waiting_seconds_total":
        r.cpuWaitingSeconds = s.value;
        break;
      case "node_load1":
        r.load1 = s.value;
        break;
    }
  }
  if (r.memoryTotalBytes !== undefined && available !== undefined)
    r.memoryUsedBytes = Math.max(0, r.memoryTotalBytes - available);
  return r;
}

/** Options of {@link NodeExporterSource}. */
export type NodeExporterSourceOptions = {
  /** node_exporter's metrics endpoint, e.g. `http://127.0.0.1:9100/metrics`. */
  url: string;
  /** Time limit of one scrape. @default 5000 */
  timeoutMs?: number;
  /** Called once, the first time the endpoint proves unavailable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
  /** Clock, for the CPU pressure's rate between scrapes. @default Date.now */
  now?: () => number;
};

type Exclusive = { jobId: string; cpuBase: number; peak: number };

/**
 * Node-wide usage scraped from node_exporter, given to a job only while it runs alone on the node
 * (the node's usage then is the job's, mapped by host and time); where jobs share the node it
 * records nothing per job, as `cannotSee` says. The job's CPU time counts from the first scrape
 * that saw it alone, and its CPU pressure is the share of time tasks waited for a core since the
 * scrape before.
 *
 * @example
 * ```ts
 * const nodeExporter = new NodeExporterSource({ url: "http://127.0.0.1:9100/metrics" });
 * const usage = await nodeExporter.exclusiveJobUsage("4242"); // undefined if the scrape failed
 * ```
 */
export class NodeExporterSource {
  readonly cannotSee = [
    "usage of each job where jobs share the node (nothing is recorded per job)",
    "a job's memory apart from the node's daemons and kernel",
    "memory limits, I/O and pids of the job",
  ] as const;
  private readonly endpoint: PrometheusEndpoint;
  private readonly now: () => number;
  private exclusive: Exclusive | undefined;
  private previous: { at: number; waiting: number } | undefined;

  constructor(options: NodeExporterSourceOptions) {
    this.endpoint = new PrometheusEndpoint({ ...options, name: "node_exporter" });
    this.now = options.now ?? Date.now;
  }

  get status(): PrometheusEndpointStatus {
    return this.endpoint.status;
  }

  /** Scrape once: the node's figures, or `undefined` when the scrape failed. Never rejects. */
  async read(): Promise<NodeExporterReading | undefined> {
    const samples = await this.endpoint.scrape();
    if (!samples) return undefined;
    const reading = nodeExporterReading(samples);
    if (reading.cpuSeconds === undefined && reading.memoryUsedBytes === undefined) {
      this.endpoint.failed(`${this.endpoint.url} serves neither node_cpu_seconds_total nor node memory`);
      return undefined;
    }
    return reading;
  }

  /**
   * The usage of `jobId`, the one job running on this node now, in the cgroup reader's shape;
   * `undefined` when the scrape failed. Call it only when the node is exclusive to the job.
   */
  async exclusiveJobUsage(jobId: string): Promise<CgroupUsage | undefined> {
    const r = await this.read();
    if (!r) return undefined;
    const at = this.now();
    if (this.exclusive?.jobId !== jobId) this.exclusive = { jobId, cpuBase: r.cpuSeconds ?? 0, peak: 0 };
    const usage: CgroupUsage = {};
    if (r.memoryUsedBytes !== undefined) {
      this.exclusive.peak = Math.max(this.exclusive.peak, r.memoryUsedBytes);
      usage.memory = { currentBytes: r.memoryUsedBytes, peakBytes: this.exclusive.peak };
    }
    if (r.cpuSeconds !== undefined) {
      usage.cpu = { usageSeconds: Math.max(0, r.cpuSeconds - this.exclusive.cpuBase) };
      if (r.load1 !== undefined) usage.cpu.nodeLoad1 = r.load1;
    }
    const before = this.previous;
    if (r.cpuWaitingSeconds !== undefined) {
      this.previous = { at, waiting: r.cpuWaitingSeconds };
      const seconds = before ? (at - before.at) / 1000 : 0;
      if (before && seconds > 0) {
        const share = ((r.cpuWaitingSeconds - before.waiting) / seconds) * 100;
        usage.pressure = { cpuSome: Math.min(100, Math.max(0, share)) };
      }
    }
    return usage;
  }

  /** Forget the job seen alone, so a later one counts its CPU time from its own start. */
  notExclusive(): void {
    this.exclusive = undefined;
  }
}
