import type { ResourceName } from "@jobsight/sdk";

const GiB = 2 ** 30;
const MiB = 2 ** 20;

function bytes(value: number): string {
  if (value >= GiB) return `${Number((value / GiB).toFixed(1))} GiB`;
  return `${Math.round(value / MiB)} MiB`;
}

function duration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : `${h} h ${String(m).padStart(2, "0")} min`;
}

/**
 * A resource quantity in the unit people read it in: `formatValue("memory", 2 ** 34)` is `16 GiB`,
 * `formatValue("walltime", 5400)` is `1 h 30 min`; `—` when there is none.
 */
export function formatValue(resource: ResourceName, value: number | undefined): string {
  if (value === undefined) return "—";
  if (resource === "memory" || resource === "gpuMemory") return bytes(value);
  if (resource === "walltime") return duration(value);
  return String(Number(value.toFixed(2)));
}

/** `low – high`, or `—` without a range. */
export function formatRange(resource: ResourceName, low?: number, high?: number): string {
  if (low === undefined || high === undefined) return "—";
  return `${formatValue(resource, low)} – ${formatValue(resource, high)}`;
}

/** Human names of the resources, in the table's order. */
export const resourceLabels: Record<ResourceName, string> = {
  memory: "Memory",
  cores: "CPU cores",
  gpus: "GPUs",
  gpuMemory: "GPU memory",
  walltime: "Walltime",
};
