import { type Logger, silentLogger } from "../../log/logger.js";
import type { GpuFault } from "../gpu/gpu-lost.js";
import type { GpuSource, GpuSourceStatus } from "../gpu/gpu-source.js";
import type { ComputeApp, GpuIdentity } from "../gpu/nvidia-smi-csv.js";
import { parsePrometheusText } from "../prometheus/prometheus-text.js";
import type { GpuUsage } from "../usage-parts.js";
import { type DcgmDevice, dcgmDevices } from "./dcgm-devices.js";

/** Options of {@link DcgmExporter}. */
export type DcgmExporterOptions = {
  /** dcgm-exporter's metrics endpoint. @default "http://127.0.0.1:9400/metrics" */
  url?: string;
  /** How often to scrape. @default 10000 */
  intervalMs?: number;
  /** Time limit of one scrape. @default 5000 */
  timeoutMs?: number;
  /** How often to try again, quietly, once the exporter was found unavailable. @default 300000 */
  unavailableRetryMs?: number;
  /** Called once, the first time the exporter proves unavailable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** The largest scrape read; a node's exporter serves tens of kilobytes. */
const MAX_BODY = 8 * 1024 * 1024;

/**
 * GPU readings scraped from NVIDIA's dcgm-exporter (`/metrics`, Prometheus text format) instead of
 * running nvidia-smi: whole GPUs as `latest()`, and MIG instances as devices of their own, which
 * dcgm-exporter's Kubernetes mapping ties to the pod holding each (`podDevices()`). It cannot see
 * which processes run on a GPU, nor GPUs falling off the bus (the kernel log's Xids still can).
 * Scraping never throws: a failed scrape is logged and tried again next interval.
 *
 * @example
 * ```ts
 * const gpus = new DcgmExporter({ url: "http://127.0.0.1:9400/metrics", onUnavailable: (m) => log.warn(m) });
 * gpus.start();
 * const readings = gpus.latest();
 * await gpus.stop();
 * ```
 */
export class DcgmExporter implements GpuSource {
  readonly cannotSee = ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"] as const;
  private readonly url: string;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly unavailableRetryMs: number;
  private readonly onUnavailable: (message: string) => void;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private devices: DcgmDevice[] = [];
  private at = 0;
  private readonly identities = new Map<string, GpuIdentity>();
  private reportedUnavailable = false;
  private failing = false;
  private scraping: Promise<void> | undefined;
  /** Scrape lines and devices that could not be used, counted for health output. */
  skippedLines = 0;
  status: GpuSourceStatus = "stopped";
  // Set by stop(): a run that was out when it came must not bring the source back.
  private halted = false;

  constructor(options: DcgmExporterOptions = {}) {
    this.url = options.url ?? "http://127.0.0.1:9400/metrics";
    this.intervalMs = options.intervalMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.unavailableRetryMs = options.unavailableRetryMs ?? 300_000;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.log = options.logger ?? silentLogger;
  }

  /** Start scraping (idempotent); the first scrape runs at once. */
  start(): void {
    if (this.status !== "stopped" && this.status !== "unavailable") return;
    this.halted = false;
    this.status = "starting";
    this.tick();
  }

  private tick(): void {
    // Skip a tick while the previous scrape is still out.
    this.scraping ??= this.scrape().finally(() => {
      this.scraping = undefined;
      if (this.halted) return;
      this.schedule(this.status === "unavailable" ? this.unavailableRetryMs : this.intervalMs);
    });
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  /** One scrape; resolves (never rejects) once the readings are updated or the failure noted. */
  async scrape(): Promise<void> {
    let body: string;
    try {
      const res = await fetch(this.url, { signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = await res.text();
      if (body.length > MAX_BODY) throw new Error(`response over ${MAX_BODY} bytes`);
    } catch (error) {
      this.failed(`${this.url}: ${(error as Error).message}`);
      return;
    }
    if (this.halted) return;
    const { samples, problems } = parsePrometheusText(body);
    const { devices, skipped } = dcgmDevices(samples);
    this.skippedLines += problems.length + skipped.length;
    if (devices.length === 0) {
      this.failed(`${this.url} serves no DCGM GPU readings`);
      return;
    }
    if (this.failing) this.log.info("dcgm-exporter answers again", { url: this.url });
    this.failing = false;
    this.status = "running";
    this.devices = devices;
    this.at = Date.now();
    for (const d of devices) this.identities.set(d.gpu.uuid ?? String(d.gpu.index), d.gpu);
  }

  private failed(message: string): void {
    if (this.halted) return;
    if (this.status === "running") {
      if (!this.failing) this.log.warn("dcgm-exporter scrape failed; trying again", { reason: message });
      this.failing = true;
      return;
    }
    this.status = "unavailable";
    if (this.reportedUnavailable) return;
    this.reportedUnavailable = true;
    this.log.warn("GPU source unavailable; continuing without GPUs", { source: "gpu", reason: message });
    try {
      this.onUnavailable(message);
    } catch {
      // A faulty callback must not stop the source.
    }
  }

  private fresh(now: number): DcgmDevice[] {
    return now - this.at <= 3 * this.intervalMs ? this.devices : [];
  }

  /** The latest reading of every whole GPU (a GPU split into MIG instances has none), leaving out stale ones. */
  latest(now = Date.now()): GpuUsage[] {
    return this.fresh(now)
      .filter((d) => !d.mig)
      .map((d) => d.usage);
  }

  /** Every device of the latest scrape, MIG instances included, with DCGM's own labels. */
  latestDevices(now = Date.now()): DcgmDevice[] {
    return [...this.fresh(now)];
  }

  /** Readings of the devices dcgm-exporter ties to a pod, by `namespace/name`. */
  podDevices(now = Date.now()): Map<string, GpuUsage[]> {
    const out = new Map<string, GpuUsage[]>();
    for (const d of this.fresh(now)) {
      if (!d.pod) continue;
      const list = out.get(d.pod) ?? [];
      list.push(d.usage);
      out.set(d.pod, list);
    }
    return out;
  }

  /** Every physical GPU seen since start. */
  known(): GpuIdentity[] {
    return [...this.identities.values()].sort((a, b) => a.index - b.index);
  }

  /** dcgm-exporter does not list processes: always empty. */
  async computeApps(): Promise<ComputeApp[]> {
    return [];
  }

  /** dcgm-exporter does not report lost GPUs as nvidia-smi does: always empty. */
  takeFaults(): GpuFault[] {
    return [];
  }

  /** Stop scraping; waits for a scrape in flight. */
  async stop(): Promise<void> {
    this.halted = true;
    this.status = "stopped";
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.scraping;
  }
}
