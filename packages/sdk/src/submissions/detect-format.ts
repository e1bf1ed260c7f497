/** The submission formats Jobsight reads and edits. */
export type SubmissionFormat = "sbatch" | "kubernetes";

/**
 * Tell an sbatch script from a Kubernetes manifest, by file name first (`.yaml`, `.yml`, `.json`
 * are manifests; `.sbatch`, `.slurm`, `.sh` scripts), then by content.
 *
 * @example
 * ```ts
 * detectFormat("#!/bin/bash\n#SBATCH --mem=4G\n"); // "sbatch"
 * detectFormat("apiVersion: v1\nkind: Pod\n"); // "kubernetes"
 * ```
 */
export function detectFormat(text: string, fileName?: string): SubmissionFormat {
  const name = fileName?.toLowerCase() ?? "";
  if (/\.(ya?ml|json)$/.test(name)) return "kubernetes";
  if (/\.(sbatch|slurm|sh|bash|job)$/.test(name)) return "sbatch";
  if (/^#SBATCH/m.test(text) || text.startsWith("#!")) return "sbatch";
  if (text.trimStart().startsWith("{") || /^\s*["']?(apiVersion|kind)["']?\s*:/m.test(text))
    return "kubernetes";
  return "sbatch";
}
