// SLURM's text formats: durations, memory sizes, TRES lists, host lists and local timestamps.

const MEMORY_UNITS: Record<string, number> = {
  "": 1,
  K: 2 ** 10,
  M: 2 ** 20,
  G: 2 ** 30,
  T: 2 ** 40,
  P: 2 ** 50,
};

/**
 * Seconds of a SLURM duration: `[DD-]HH:MM:SS`, `MM:SS`, `MM:SS.mmm` (TotalCPU); `undefined` for
 * `UNLIMITED`, `Partition_Limit`, `INVALID`, empty.
 *
 * @example
 * ```ts
 * parseSlurmDuration("1-02:00:00"); // 93600
 * parseSlurmDuration("05:30");      // 330
 * ```
 */
export function parseSlurmDuration(text: string): number | undefined {
  const m = /^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return undefined;
  const [, days, hours, minutes, seconds] = m;
  // "MM:SS" has no hours; "D-HH:MM" does not occur in sacct output.
  return Number(days ?? 0) * 86_400 + Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds);
}

/**
 * Bytes of a SLURM memory size: `115204K`, `1.50G`, `100M`, `4000Mc` (per CPU) or `4000Mn` (per
 * node); a bare number is in `defaultUnit`. `undefined` when empty or unparsable.
 *
 * @example
 * ```ts
 * parseSlurmMemory("4000Mc"); // { bytes: 4194304000, per: "cpu" }
 * ```
 */
export function parseSlurmMemory(
  text: string,
  defaultUnit: "K" | "M" = "M",
): { bytes: number; per?: "cpu" | "node" } | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGTP]?)([cn]?)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2] ? m[2].toUpperCase() : defaultUnit;
  const bytes = Math.round(Number(m[1]) * MEMORY_UNITS[unit]);
  const per = m[3] === "c" ? "cpu" : m[3] === "n" ? "node" : undefined;
  return per ? { bytes, per } : { bytes };
}

/**
 * A TRES list (`billing=1,cpu=4,mem=100M,node=1,gres/gpu=2`) as a map; memory values in bytes.
 *
 * @example
 * ```ts
 * parseTres("cpu=4,mem=2G,gres/gpu:a100=1").get("gres/gpu"); // 1
 * ```
 */
export function parseTres(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    let key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    // gres/gpu:a100=1 counts as gres/gpu too.
    if (key.startsWith("gres/gpu:")) key = "gres/gpu";
    if (key === "mem") {
      const mem = parseSlurmMemory(value);
      if (mem) out.set(key, mem.bytes);
    } else if (/^\d+(\.\d+)?$/.test(value)) {
      out.set(key, (out.get(key) ?? 0) + Number(value));
    }
  }
  return out;
}

/**
 * Expands a SLURM host list (`node[01-03,07],gpu1`) into names, at most `limit` of them.
 *
 * @example
 * ```ts
 * expandHostlist("n[1-3]"); // ["n1", "n2", "n3"]
 * ```
 */
export function expandHostlist(text: string, limit = 4096): string[] {
  const trimmed = text.trim();
  if (!trimmed || /^none/i.test(trimmed) || trimmed === "(null)") return [];
  const hosts: string[] = [];
  // Split on commas outside brackets.
  const parts = trimmed.match(/[^,[]+(?:\[[^\]]*\][^,[]*)*/g) ?? [];
  for (const part of parts) {
    const m = /^([^[]*)\[([^\]]*)\](.*)$/.exec(part);
    if (!m) {
      hosts.push(part);
    } else {
      for (const range of m[2].split(",")) {
        const [a, b] = range.split("-");
        if (b === undefined) hosts.push(`${m[1]}${a}${m[3]}`);
        else {
          for (let i = Number(a); i <= Number(b) && hosts.length < limit; i++) {
            hosts.push(`${m[1]}${String(i).padStart(a.length, "0")}${m[3]}`);
          }
        }
      }
    }
    if (hosts.length >= limit) break;
  }
  return hosts.slice(0, limit);
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function zoneOffsetMs(timeZone: string, utcMs: number): number {
  let f = offsetFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    offsetFormatters.set(timeZone, f);
  }
  const name = f.formatToParts(new Date(utcMs)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60_000;
}

/**
 * Unix seconds of a sacct timestamp (`2026-12-01T10:00:00`, local time of the cluster, given as
 * an IANA zone); `undefined` for `Unknown`, `None`, empty.
 *
 * @example
 * ```ts
 * parseSlurmTime("2026-12-01T10:00:00", "Europe/Paris"); // 1796115600
 * ```
 */
export function parseSlurmTime(text: string, timeZone = "UTC"): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  if (timeZone === "UTC") return wall / 1000;
  // The offset at the wall time itself is right except within a DST change; a second pass fixes it.
  let utc = wall - zoneOffsetMs(timeZone, wall);
  utc = wall - zoneOffsetMs(timeZone, utc);
  return utc / 1000;
}
