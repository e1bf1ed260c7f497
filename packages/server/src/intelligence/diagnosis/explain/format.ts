/**
 * Human-readable figures for claims and evidence text. Binary units (GiB), because schedulers and
 * cgroups count in them and a user compares the figure with their `--mem=32G`.
 *
 * @example
 * ```ts
 * formatBytes(34_359_738_368); // "32 GiB"
 * formatDuration(5400); // "1 h 30 min"
 * ```
 */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${trim(v)} ${units[u]}`;
}

/** A duration in seconds as `2 h 05 min`, `12 min 30 s` or `45 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const m = Math.floor(s / 60);
    const r = s % 60;
    return r === 0 ? `${m} min` : `${m} min ${String(r).padStart(2, "0")} s`;
  }
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  if (m === 60) return `${h + 1} h`;
  return m === 0 ? `${h} h` : `${h} h ${String(m).padStart(2, "0")} min`;
}

/** A share (0-1) as a whole percentage, `7%`; shares under 1% keep one decimal, under 0.05% are "under 0.1%". */
export function formatShare(share: number): string {
  const p = share * 100;
  // "0.0%" would read as none at all: a share that rounds away is "under 0.1%".
  if (p > 0 && p < 0.05) return "under 0.1%";
  return `${p > 0 && p < 1 ? p.toFixed(1) : Math.round(p)}%`;
}

/** A number with at most one decimal, without a trailing `.0`. */
export function trim(v: number): string {
  const r = Math.round(v * 10) / 10;
  return Number.isInteger(r) ? String(r) : r.toFixed(1);
}

/** Milliseconds since the epoch of an RFC 3339 timestamp. */
export function ms(timestamp: string): number {
  return Date.parse(timestamp);
}

/** Seconds from `a` to `b` (RFC 3339 timestamps). */
export function secondsBetween(a: string, b: string): number {
  return (ms(b) - ms(a)) / 1000;
}
