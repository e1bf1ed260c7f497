import type { GpuIdentity } from "../gpu/nvidia-smi-csv.js";
import type { GpuUsage } from "../usage-parts.js";

/** The arguments the collector hands rocm-smi: use, VRAM, power, temperature, PCI address and unique id, as JSON. */
export const ROCM_SMI_ARGS = [
  "--showuse",
  "--showmeminfo",
  "vram",
  "--showpower",
  "--showtemp",
  "--showbus",
  "--showuniqueid",
  "--json",
] as const;

/** What {@link parseRocmSmiJson} read: each card's reading and identity, and cards it had to skip. */
export type RocmSmiReading = {
  gpus: { usage: GpuUsage; identity: GpuIdentity }[];
  /** Cards without a utilisation or used-VRAM figure, e.g. `card2: GPU use (%) not available`. */
  skipped: string[];
};

function num(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v !== "string" || !/^\s*-?\d+(\.\d+)?\s*$/.test(v)) return undefined;
  return Number(v);
}

function first(card: Record<string, unknown>, keys: string[]): number | undefined {
  for (const k of keys) {
    const n = num(card[k]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * Parse `rocm-smi --showuse --showmeminfo vram --showpower --showtemp --showbus --showuniqueid --json`:
 * an object of `cardN` entries whose values are strings (`"GPU use (%)": "12"`, `"VRAM Total
 * Memory (B)": "68702699520"`, `"PCI Bus": "0000:C1:00.0"`). Power is the average or current
 * socket package power, whichever this ROCm release prints; temperature the edge sensor, else the
 * junction. The card number is the index. Throws on text that is not a JSON object.
 *
 * @example
 * ```ts
 * parseRocmSmiJson('{"card0": {"GPU use (%)": "12", "VRAM Total Used Memory (B)": "1024"}}').gpus[0].usage;
 * // { index: 0, utilizationPercent: 12, memoryUsedBytes: 1024 }
 * ```
 */
export function parseRocmSmiJson(text: string): RocmSmiReading {
  const data: unknown = JSON.parse(text);
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw new TypeError("rocm-smi --json printed no object");
  const gpus: RocmSmiReading["gpus"] = [];
  const skipped: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const m = /^card(\d{1,3})$/.exec(key);
    if (!m || typeof value !== "object" || value === null) continue;
    const card = value as Record<string, unknown>;
    const index = Number(m[1]);
    const util = first(card, ["GPU use (%)"]);
    const used = first(card, ["VRAM Total Used Memory (B)"]);
    if (util === undefined) {
      skipped.push(`${key}: GPU use (%) not available`);
      continue;
    }
    if (used === undefined) {
      skipped.push(`${key}: VRAM Total Used Memory (B) not available`);
      continue;
    }
    const usage: GpuUsage = {
      index,
      utilizationPercent: Math.min(100, Math.max(0, util)),
      memoryUsedBytes: Math.max(0, Math.round(used)),
    };
    const identity: GpuIdentity = { index, minor: index };
    const bus = card["PCI Bus"];
    if (typeof bus === "string" && /^[0-9A-Fa-f:.]{7,64}$/.test(bus)) {
      usage.pciBusId = bus;
      identity.pciBusId = bus;
    }
    const uid = card["Unique ID"];
    // On the reading too: job attribution matches a reading to its identity by UUID.
    if (typeof uid === "string" && /^0x[0-9a-fA-F]+$/.test(uid)) {
      usage.uuid = uid;
      identity.uuid = uid;
    }
    const total = first(card, ["VRAM Total Memory (B)"]);
    if (total !== undefined && total >= 0) usage.memoryTotalBytes = Math.round(total);
    const power = first(card, [
      "Average Graphics Package Power (W)",
      "Current Socket Graphics Package Power (W)",
    ]);
    if (power !== undefined && power >= 0) usage.powerWatts = power;
    const temp = first(card, ["Temperature (Sensor edge) (C)", "Temperature (Sensor junction) (C)"]);
    if (temp !== undefined) usage.temperatureCelsius = temp;
    gpus.push({ usage, identity });
  }
  gpus.sort((a, b) => a.usage.index - b.usage.index);
  return { gpus, skipped };
}
