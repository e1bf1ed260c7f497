import { MigUuidReader } from "../gpu/mig-uuid-reader.js";
import { PolledGpuSource, type PolledGpuSourceOptions } from "../gpu/polled-gpu-source.js";
import { fetchExposition } from "../prometheus/fetch-exposition.js";
import { parsePrometheusText } from "../prometheus/prometheus-text.js";
import type { GpuUsage } from "../usage-parts.js";
import { type DcgmDevice, dcgmDevices } from "./dcgm-devices.js";

/** Options of {@link DcgmExporter}: where to scrape, and the polling loop's (a scrape per `intervalMs`). */
export type DcgmExporterOptions = PolledGpuSourceOptions & {
  /** dcgm-exporter's metrics endpoint. @default "http://127.0.0.1:9400/metrics" */
  url?: string;
  /**
   * The nvidia-smi command, run (`-L`, `-q -x`) when the MIG layout changes to learn each MIG
   * instance's UUID, which dcgm-exporter does not export and allocations name instances by.
   * @default none: MIG instances carry no UUID
   */
  nvidiaSmi?: string;
};

/** The largest scrape read; a node's exporter serves tens of kilobytes. */
const MAX_BODY = 8 * 1024 * 1024;

/**
 * GPU readings scraped from NVIDIA's dcgm-exporter (`/metrics`, Prometheus text format) instead of
 * running nvidia-smi: whole GPUs as `latest()`, and MIG instances as devices of their own
 * (`migDevices()`), which a scheduler's allocation or dcgm-exporter's Kubernetes mapping
 * (`podDevices()`) ties to the job holding each. It cannot see
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
export class DcgmExporter extends PolledGpuSource<DcgmDevice> {
  readonly cannotSee = ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"] as const;
  private readonly url: string;
  private readonly migUuids: MigUuidReader | undefined;

  constructor(options: DcgmExporterOptions = {}) {
    const url = options.url ?? "http://127.0.0.1:9400/metrics";
    super(options, {
      answersAgain: "dcgm-exporter answers again",
      failing: "dcgm-exporter scrape failed; trying again",
      where: { url },
    });
    this.url = url;
    if (options.nvidiaSmi)
      this.migUuids = new MigUuidReader({
        command: options.nvidiaSmi,
        timeoutMs: this.timeoutMs,
        logger: this.log,
      });
  }

  /** The loop's read is one scrape. */
  protected read(): Promise<void> {
    return this.scrape();
  }

  /** One scrape; resolves (never rejects) once the readings are updated or the failure noted. */
  async scrape(): Promise<void> {
    let body: string;
    try {
      body = await fetchExposition(this.url, this.timeoutMs, MAX_BODY);
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
    await this.nameMigInstances(devices);
    if (this.halted) return;
    this.succeeded(devices);
    for (const d of devices) this.identities.set(d.gpu.uuid ?? String(d.gpu.index), d.gpu);
  }

  /** Give each MIG instance its MIG UUID, as nvidia-smi tells it. */
  private async nameMigInstances(devices: DcgmDevice[]): Promise<void> {
    const place = (d: DcgmDevice) => `${d.gpu.uuid}/gi${d.mig?.id}`;
    const instances = devices.filter((d) => d.mig && d.gpu.uuid);
    if (!this.migUuids || instances.length === 0) return;
    const uuids = await this.migUuids.forLayout(instances.map(place));
    for (const d of instances) {
      const uuid = uuids.get(place(d));
      if (uuid && d.usage.mig) d.usage.mig.uuid = uuid;
    }
  }

  /** The latest reading of every whole GPU (a GPU split into MIG instances has none), leaving out stale ones. */
  latest(now = Date.now()): GpuUsage[] {
    return this.fresh(now)
      .filter((d) => !d.mig)
      .map((d) => d.usage);
  }

  /** The latest reading of every MIG instance (`mig` set; index and UUID its parent's), leaving out stale ones. */
  migDevices(now = Date.now()): GpuUsage[] {
    return this.fresh(now).flatMap((d) => (d.mig ? [d.usage] : []));
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
}
