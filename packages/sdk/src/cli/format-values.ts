import type { ResourcePrediction } from "@jobsight/schemas";
import { formatSlurmTime } from "../submissions/sbatch/slurm-units.js";

type Resource = ResourcePrediction["resource"];

/** A byte count for people: `24.0 GiB`, `512 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${Math.round(bytes / 2 ** 20)} MiB`;
  return `${Math.round(bytes)} B`;
}

/** A value of a resource for people, in the resource's natural unit. */
export function formatResourceValue(resource: Resource, value: number | undefined): string {
  if (value === undefined) return "—";
  if (resource === "memory" || resource === "gpuMemory") return formatBytes(value);
  if (resource === "walltime") return formatSlurmTime(value);
  return String(Math.round(value * 100) / 100);
}

/** `low – high` of a recommendation, or a dash. */
export function formatRange(resource: Resource, low: number | undefined, high: number | undefined): string {
  if (low === undefined && high === undefined) return "—";
  return `${formatResourceValue(resource, low)} – ${formatResourceValue(resource, high)}`;
}
