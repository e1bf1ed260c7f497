/** A GPU that nvidia-smi could no longer reach. */
export type GpuFault = {
  /** The GPU's PCI address as nvidia-smi printed it, e.g. `0000:3B:00.0`. */
  pciBusId: string;
  /** nvidia-smi's line, e.g. `Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost. …`. */
  message: string;
  /** nvidia-smi's words after the address, e.g. `GPU is lost.  Reboot the system to recover this GPU`. */
  reason: string;
  /** nvidia-smi's exit status, once it exited (15 is NVML's "GPU is lost"). */
  exitCode?: number;
  /** When it was seen, in ms since the epoch. */
  at: number;
};

// Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU
// Unable to determine the device handle for GPU0000:07:00.0: GPU is lost. Reboot the system to recover this GPU
const handleError =
  /Unable to determine the device handle for GPU\s*((?:[0-9A-Fa-f]{4,8}:)?[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)\s*:\s*(.*)$/;
// NVML's GPU_IS_LOST and RESET_REQUIRED; "Unknown Error" or "Insufficient Permissions" may be a
// container's missing device access and are left to the source-unavailable report.
const lostReason = /GPU is lost|requires reset|reset required/i;

/**
 * Recognise nvidia-smi's word that a GPU is lost (fell off the bus, needs a reboot or reset).
 *
 * @example
 * ```ts
 * parseGpuLost("Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU");
 * // { pciBusId: "0000:3B:00.0", reason: "GPU is lost.  Reboot the system to recover this GPU" }
 * ```
 */
export function parseGpuLost(line: string): { pciBusId: string; reason: string } | undefined {
  const m = handleError.exec(line.trim());
  if (!m || !lostReason.test(m[2])) return undefined;
  return { pciBusId: m[1], reason: m[2].trim() };
}
