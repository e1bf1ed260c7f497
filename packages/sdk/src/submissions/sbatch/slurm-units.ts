const MiB = 2 ** 20;

/**
 * Parse a SLURM memory size (`--mem`, `--mem-per-cpu`, `--mem-per-gpu`): an integer with an
 * optional K, M, G or T suffix, megabytes by default, as `sbatch` reads it (kilobytes round up
 * to whole megabytes). Returns bytes, or undefined when `sbatch` would refuse the value.
 *
 * @example
 * ```ts
 * parseSlurmMemory("4G"); // 4 * 2 ** 30
 * parseSlurmMemory("500"); // 500 * 2 ** 20
 * ```
 */
export function parseSlurmMemory(value: string): number | undefined {
  const m = /^(\d+)([KkMmGgTt]?)$/.exec(value.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  switch (m[2].toUpperCase()) {
    case "K":
      return Math.ceil(n / 1024) * MiB;
    case "G":
      return n * 1024 * MiB;
    case "T":
      return n * 1024 * 1024 * MiB;
    default:
      return n * MiB;
  }
}

/**
 * Write a memory size the way `sbatch` takes it: whole gibibytes as `G`, otherwise megabytes
 * (rounded up) as `M`.
 *
 * @example
 * ```ts
 * formatSlurmMemory(24 * 2 ** 30); // "24G"
 * formatSlurmMemory(1.5 * 2 ** 30); // "1536M"
 * ```
 */
export function formatSlurmMemory(bytes: number): string {
  const mib = Math.max(1, Math.ceil(bytes / MiB));
  return mib % 1024 === 0 ? `${mib / 1024}G` : `${mib}M`;
}

/** A SLURM time limit: seconds, or no limit at all. */
export type SlurmTime = number | "unlimited";

/**
 * Parse a SLURM time limit in every format `sbatch --time` accepts: `minutes`, `minutes:seconds`,
 * `hours:minutes:seconds`, `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`, and
 * `0`/`-1`/`UNLIMITED`/`INFINITE` for no limit. SLURM keeps limits in whole minutes, rounding
 * seconds up, so the result is a multiple of 60 seconds.
 *
 * @example
 * ```ts
 * parseSlurmTime("1-12:30"); // 131400 (1 day, 12 h, 30 min)
 * parseSlurmTime("90"); // 5400
 * ```
 */
export function parseSlurmTime(value: string): SlurmTime | undefined {
  const text = value.trim();
  if (/^(unlimited|infinite|-1)$/i.test(text)) return "unlimited";
  let days = 0;
  let rest = text;
  const dash = /^(\d+)-(.+)$/.exec(text);
  if (dash) {
    days = Number(dash[1]);
    rest = dash[2];
  }
  if (!/^\d+(:\d+){0,2}$/.test(rest)) return undefined;
  const parts = rest.split(":").map(Number);
  let seconds: number;
  if (dash) {
    // days-hours[:minutes[:seconds]]
    const [h, m = 0, s = 0] = parts;
    seconds = ((days * 24 + h) * 60 + m) * 60 + s;
  } else if (parts.length === 1) {
    seconds = parts[0] * 60;
  } else if (parts.length === 2) {
    seconds = parts[0] * 60 + parts[1];
  } else {
    seconds = (parts[0] * 60 + parts[1]) * 60 + parts[2];
  }
  if (seconds === 0) return "unlimited";
  return Math.ceil(seconds / 60) * 60;
}

/**
 * Write a time limit as `sbatch` takes it, rounded up to whole minutes: `D-HH:MM:SS` from one
 * day on, `HH:MM:SS` below.
 *
 * @example
 * ```ts
 * formatSlurmTime(5400); // "01:30:00"
 * formatSlurmTime(131400); // "1-12:30:00"
 * ```
 */
export function formatSlurmTime(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const hms = `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00`;
  return d > 0 ? `${d}-${hms}` : hms;
}

/** One GPU request: an optional type and a count. */
export type GpuCount = { type?: string; count: number };

/**
 * Parse the GPU part of `--gres` (`gpu`, `gpu:2`, `gpu:a100:2`, `gres/gpu:2`, in a comma list with
 * other resources). Returns undefined when the list names no GPU.
 */
export function parseGresGpu(value: string): GpuCount | undefined {
  let found: GpuCount | undefined;
  for (const item of value.split(",")) {
    const parts = item
      .trim()
      .replace(/^gres\//, "")
      .replace(/\(.*\)$/, "")
      .split(":");
    if (parts[0] !== "gpu") continue;
    const last = parts.at(-1)!;
    const hasCount = parts.length > 1 && /^\d+$/.test(last);
    const count = hasCount ? Number(last) : 1;
    const type = parts.length === 3 || (parts.length === 2 && !hasCount) ? parts[1] : undefined;
    found = { count: (found?.count ?? 0) + count, ...(type ? { type } : {}) };
  }
  return found;
}

/** Parse `--gpus`, `--gpus-per-node` or `--gpus-per-task`: `[type:]count`, possibly a comma list of types. */
export function parseGpuCount(value: string): GpuCount | undefined {
  let total: GpuCount | undefined;
  for (const item of value.split(",")) {
    const m = /^(?:([^:]+):)?(\d+)$/.exec(item.trim());
    if (!m) return undefined;
    total = {
      count: (total?.count ?? 0) + Number(m[2]),
      ...(m[1] ? { type: m[1] } : total?.type ? { type: total.type } : {}),
    };
  }
  return total;
}

/** Count the tasks of an `--array` specification (`0-15`, `1,3,5-9`, `0-15:4`, `1-7%2`). */
export function countArrayTasks(value: string): number | undefined {
  const spec = value.trim().replace(/%\d+$/, "");
  let count = 0;
  for (const part of spec.split(",")) {
    const m = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part.trim());
    if (!m) return undefined;
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (to < from || step < 1) return undefined;
    count += Math.floor((to - from) / step) + 1;
  }
  return count;
}
