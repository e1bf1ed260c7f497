import type { UsageSample } from "@jobsight/schemas";

// Which device a GPU reading is of. MIG instances of one GPU share its index (and UUID and PCI
// address), so a device is its index plus, for an instance, its GPU instance id.

/** One GPU reading of a sample: a whole GPU, or one MIG instance of a GPU. */
export type GpuReading = NonNullable<UsageSample["gpus"]>[number];

/** A device seen in a node's samples. */
export interface GpuDevice {
  /** {@link gpuDeviceKey} of its readings. */
  readonly key: string;
  /** The GPU's index on the node (a MIG instance's parent's). */
  readonly index: number;
  /** The MIG instance, when the device is one. */
  readonly gpuInstanceId: number | undefined;
  /** {@link gpuDeviceLabel} of its first reading. */
  readonly label: string;
}

/**
 * The key of the device a reading is of, unique among a node's devices: the GPU index for a whole
 * GPU, `<index>/gi<id>` for a MIG instance (as the OTLP decoder keys them).
 *
 * @example
 * ```ts
 * gpuDeviceKey({ index: 1 }); // "1"
 * gpuDeviceKey({ index: 1, mig: { gpuInstanceId: 13 } }); // "1/gi13"
 * ```
 */
export function gpuDeviceKey(g: Pick<GpuReading, "index" | "mig">): string {
  return g.mig ? `${g.index}/gi${g.mig.gpuInstanceId}` : `${g.index}`;
}

/**
 * The device's name in words, as the job page labels its lines.
 *
 * @example
 * ```ts
 * gpuDeviceLabel({ index: 1 }); // "GPU 1"
 * gpuDeviceLabel({ index: 1, mig: { gpuInstanceId: 13, profile: "1g.5gb" } }); // "GPU 1 MIG 1g.5gb (GI 13)"
 * ```
 */
export function gpuDeviceLabel(g: Pick<GpuReading, "index" | "mig">): string {
  if (!g.mig) return `GPU ${g.index}`;
  const profile = g.mig.profile ? ` ${g.mig.profile}` : "";
  return `GPU ${g.index} MIG${profile} (GI ${g.mig.gpuInstanceId})`;
}

/**
 * The reading of device `key` in a sample, or undefined when the sample does not report it.
 *
 * @example
 * ```ts
 * gpuReadingOf(sample, "1/gi13")?.utilizationPercent; // 0
 * ```
 */
export function gpuReadingOf(sample: UsageSample, key: string): GpuReading | undefined {
  return sample.gpus?.find((g) => gpuDeviceKey(g) === key);
}

/**
 * The devices seen in some samples (of one node), by index and then instance, a whole GPU first.
 *
 * @example
 * ```ts
 * gpuDevices(samples).map((d) => d.label); // ["GPU 0", "GPU 1 MIG 1g.5gb (GI 13)", "GPU 1 MIG 1g.5gb (GI 14)"]
 * ```
 */
export function gpuDevices(samples: readonly UsageSample[]): GpuDevice[] {
  const seen = new Map<string, GpuDevice>();
  for (const s of samples) {
    for (const g of s.gpus ?? []) {
      const key = gpuDeviceKey(g);
      if (!seen.has(key))
        seen.set(key, { key, index: g.index, gpuInstanceId: g.mig?.gpuInstanceId, label: gpuDeviceLabel(g) });
    }
  }
  return [...seen.values()].sort(
    (a, b) => a.index - b.index || (a.gpuInstanceId ?? -1) - (b.gpuInstanceId ?? -1),
  );
}

/**
 * Several devices in words: `GPU 0` or `GPUs 0, 1` when all are whole GPUs, else their labels.
 *
 * @example
 * ```ts
 * gpuDevicesLabel(gpuDevices(samples)); // "GPUs 0, 1", or "GPU 1 MIG 1g.5gb (GI 13), GPU 1 MIG 1g.5gb (GI 14)"
 * ```
 */
export function gpuDevicesLabel(devices: readonly GpuDevice[]): string {
  if (devices.some((d) => d.gpuInstanceId !== undefined)) return devices.map((d) => d.label).join(", ");
  return `GPU${devices.length > 1 ? "s" : ""} ${devices.map((d) => d.index).join(", ")}`;
}
