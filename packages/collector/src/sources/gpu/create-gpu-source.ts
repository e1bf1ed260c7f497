import type { CollectorConfig } from "../../config/collector-config.js";
import type { Logger } from "../../log/logger.js";
import { DcgmExporter } from "../dcgm/dcgm-exporter.js";
import { AmdSmi } from "../rocm/amd-smi.js";
import { RocmSmi } from "../rocm/rocm-smi.js";
import type { GpuSource } from "./gpu-source.js";
import { NvidiaSmi } from "./nvidia-smi.js";

/** What every GPU source is built with, besides its own settings. */
export type GpuSourceContext = {
  /** Sampling or scraping interval. */
  intervalMs: number;
  logger: Logger;
  /** Called once, the first time the source proves unavailable. */
  onUnavailable: (message: string) => void;
};

/**
 * The GPU source `gpu.source` names: nvidia-smi, a dcgm-exporter endpoint, rocm-smi or amd-smi.
 *
 * @example
 * ```ts
 * const gpus = createGpuSource(config.gpu, { intervalMs: 10_000, logger, onUnavailable: (m) => log.warn(m) });
 * gpus.start();
 * ```
 */
export function createGpuSource(gpu: CollectorConfig["gpu"], context: GpuSourceContext): GpuSource {
  switch (gpu.source) {
    case "dcgm":
      return new DcgmExporter({ url: gpu.dcgmUrl, nvidiaSmi: gpu.command, ...context });
    case "rocm-smi":
      return new RocmSmi({ command: gpu.rocmSmi, ...context });
    case "amd-smi":
      return new AmdSmi({ command: gpu.amdSmi, ...context });
    default:
      return new NvidiaSmi({ command: gpu.command, ...context });
  }
}
