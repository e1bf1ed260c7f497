// SLURM's option strings, as cli_filter/lua hands them over (`options["mem"] == "500"`,
// `options["time"] == "01:00:00"`) and as job_submit/lua's numbers are sent on.

const MEMORY_UNITS: Record<string, number> = {
  "": 1,
  K: 1 / 1024,
  M: 1,
  G: 1024,
  T: 1024 ** 2,
  P: 1024 ** 3,
};

/**
 * Megabytes from a SLURM memory string: a number with an optional K, M, G, T (or P) suffix, MB by
 * default, as `--mem` takes it (and as `mbytes_to_str` writes it back: `500`, `2G`). K rounds up.
 * Undefined when it is not one.
 *
 * @example
 * ```ts
 * parseSlurmMemoryMb("2G"); // 2048
 * ```
 */
export function parseSlurmMemoryMb(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGTP]?)B?$/i.exec(text.trim());
  if (!m) return undefined;
  const mb = Number(m[1]) * MEMORY_UNITS[m[2].toUpperCase()];
  return Number.isFinite(mb) ? Math.ceil(mb) : undefined;
}

/** Megabytes for people: `16G` when whole gigabytes, else `1536M`. */
export function describeMemoryMb(mb: number): string {
  return mb > 0 && mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
}

/**
 * Minutes from a SLURM time string (`minutes`, `minutes:seconds`, `hours:minutes:seconds`,
 * `days-hours`, `days-hours:minutes`, `days-hours:minutes:seconds`), seconds rounded up to the
 * next minute as SLURM does. Undefined for `UNLIMITED`/`INFINITE` and for anything else.
 *
 * @example
 * ```ts
 * parseSlurmTimeMinutes("1-02:30:00"); // 1590
 * parseSlurmTimeMinutes("90"); // 90
 * ```
 */
export function parseSlurmTimeMinutes(text: string): number | undefined {
  const t = text.trim();
  const day = /^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/.exec(t);
  if (day) {
    const [d, h, m, s] = [day[1], day[2], day[3] ?? "0", day[4] ?? "0"].map(Number);
    return d * 1440 + h * 60 + m + Math.ceil(s / 60);
  }
  const parts = t.split(":");
  if (parts.length > 3 || parts.some((p) => !/^\d+$/.test(p))) return undefined;
  const n = parts.map(Number);
  if (n.length === 1) return n[0];
  if (n.length === 2) return n[0] + Math.ceil(n[1] / 60);
  return n[0] * 60 + n[1] + Math.ceil(n[2] / 60);
}

/** Minutes for people, the way SLURM prints a limit: `[days-]hours:minutes:seconds`. */
export function describeMinutes(minutes: number): string {
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const hms = `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00`;
  return d > 0 ? `${d}-${hms}` : hms;
}

/** One `name[:type][:count]` item of a GRES or TRES list. */
type GresItem = { name: string; type?: string; count: number; raw: string };

/** A parsed GRES list, e.g. `gpu:a100:2,nvme:1`, or `gres/gpu:2` as job_submit sees it. */
export type GresList = { items: GresItem[] };

/**
 * Parse a GRES list. With `implicitName` (the `--gpus` and `--gpus-per-node` forms, `[type:]count`)
 * an item that does not start with a name is that resource.
 *
 * @example
 * ```ts
 * gpuCount(parseGres("gres/gpu:a100:2,gres/nvme:1")); // 2
 * gpuCount(parseGres("a100:4", "gpu")); // 4
 * ```
 */
export function parseGres(text: string, implicitName?: string): GresList | undefined {
  const items: GresItem[] = [];
  for (const raw of text.split(",").map((s) => s.trim())) {
    if (!raw) return undefined;
    const parts = raw.replace(/^gres[:/]/, "").split(":");
    if (parts.some((p) => p === "")) return undefined;
    const last = parts.at(-1)!;
    const counted = /^\d+$/.test(last);
    const count = counted ? Number(last) : 1;
    const named = counted ? parts.slice(0, -1) : parts;
    if (implicitName !== undefined && (named.length === 0 || named[0] !== implicitName))
      named.unshift(implicitName);
    if (named.length === 0 || named.length > 2) return undefined;
    items.push({ name: named[0], ...(named[1] !== undefined ? { type: named[1] } : {}), count, raw });
  }
  return { items };
}

/** The GPUs of a GRES list (0 when it names none). */
export function gpuCount(list: GresList): number {
  return list.items.filter((i) => i.name === "gpu").reduce((sum, i) => sum + i.count, 0);
}

/**
 * The list with its GPU count set to `count`, written the way users type it (no `gres/` prefix).
 * With `implicitName`, the GPU item is written without its name (`a100:2`), as `--gpus` takes it.
 */
export function withGpuCount(list: GresList, count: number, implicitName?: string): string {
  let done = false;
  return list.items
    .map((i) => {
      if (i.name !== "gpu" || done) return i.raw.replace(/^gres[:/]/, "");
      done = true;
      const named = implicitName === "gpu" ? [] : [i.name];
      return [...named, ...(i.type !== undefined ? [i.type] : []), String(count)].join(":");
    })
    .join(",");
}
