// Parsers for the cgroup interface-file formats described in the kernel's cgroup-v2 documentation
// ("Interface Files" conventions: flat keyed, nested keyed, single value) and the PSI format.

/**
 * Where the first line that starts with `prefix` (followed by the character `next`, unless -1)
 * begins, or -1. Searching for the prefix and checking its neighbours avoids building a
 * `"\n" + prefix` string per call: these run for thousands of files every round.
 */
function lineStart(text: string, prefix: string, next: number): number {
  for (let at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1)) {
    if (
      (at === 0 || text.charCodeAt(at - 1) === 10) &&
      (next < 0 || text.charCodeAt(at + prefix.length) === next)
    )
      return at;
  }
  return -1;
}

const SOME_AVG10 = "some avg10=";
const FULL_AVG10 = "full avg10=";

/**
 * Parse a flat-keyed file (`memory.stat`, `cpu.stat`, `memory.events`): one `key value` per line.
 *
 * @example
 * ```ts
 * parseFlatKeyed("anon 4096\nfile 8192\n").get("anon"); // 4096
 * ```
 */
export function parseFlatKeyed(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const space = text.indexOf(" ", start);
    if (space > start && space < end) {
      const value = Number(text.slice(space + 1, end));
      if (Number.isFinite(value)) out.set(text.slice(start, space), value);
    }
    start = end + 1;
  }
  return out;
}

/**
 * One value of a flat-keyed file without building a map: the collector reads a handful of keys
 * from files of fifty, for hundreds of jobs every round, and this keeps that free of garbage.
 *
 * @example
 * ```ts
 * flatKeyedValue("anon 4096\nfile 8192\n", "file"); // 8192
 * ```
 */
export function flatKeyedValue(text: string, key: string): number | undefined {
  const at = lineStart(text, key, 32 /* space */);
  if (at < 0) return undefined;
  const start = at + key.length + 1;
  let end = text.indexOf("\n", start);
  if (end < 0) end = text.length;
  const v = Number(text.slice(start, end));
  return Number.isFinite(v) ? v : undefined;
}

/**
 * The bytes to search for a flat-keyed `key` with {@link flatKeyedValueIn}: the key and its space.
 *
 * @example
 * ```ts
 * const ANON = flatKey("anon");
 * ```
 */
export function flatKey(key: string): Buffer {
  return Buffer.from(`${key} `, "latin1");
}

/**
 * {@link flatKeyedValue} on the file's bytes, for large files read for a few keys (`memory.stat`
 * has some fifty lines, over 1 KB per job per round) so their text never becomes a string.
 *
 * @example
 * ```ts
 * flatKeyedValueIn(Buffer.from("anon 4096\nfile 8192\n"), flatKey("file")); // 8192
 * ```
 */
export function flatKeyedValueIn(bytes: Buffer, key: Buffer): number | undefined {
  let at = bytes.indexOf(key);
  while (at > 0 && bytes[at - 1] !== 10) at = bytes.indexOf(key, at + 1);
  if (at < 0) return undefined;
  const start = at + key.length;
  let end = bytes.indexOf(10, start);
  if (end < 0) end = bytes.length;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = bytes[i] - 48;
    // Not plain digits (never seen in these files): let Number decide, as flatKeyedValue does.
    if (d < 0 || d > 9 || end - start > 15) {
      const n = Number(bytes.toString("latin1", start, end));
      return Number.isFinite(n) ? n : undefined;
    }
    v = v * 10 + d;
  }
  return end > start ? v : undefined;
}

/**
 * The `avg10` of a PSI file's `some` or `full` line, without splitting the file.
 *
 * @example
 * ```ts
 * pressureAvg10("some avg10=1.50 avg60=0.20 avg300=0.00 total=12345\n", "some"); // 1.5
 * ```
 */
export function pressureAvg10(text: string, kind: "some" | "full"): number | undefined {
  const prefix = kind === "some" ? SOME_AVG10 : FULL_AVG10;
  const at = lineStart(text, prefix, -1);
  if (at < 0) return undefined;
  const start = at + prefix.length;
  const end = text.indexOf(" ", start);
  const v = Number(text.slice(start, end < 0 ? undefined : end));
  return Number.isFinite(v) ? v : undefined;
}

/** Totals of `io.stat` over every device line. */
export type IoStatTotals = { rbytes: number; wbytes: number; rios: number; wios: number };

/**
 * Sum a nested-keyed `io.stat` (`8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0`)
 * over devices. An empty file (no I/O charged yet) is all zeros.
 *
 * @example
 * ```ts
 * parseIoStat("8:0 rbytes=10 wbytes=20 rios=1 wios=2 dbytes=0 dios=0\n").wbytes; // 20
 * ```
 */
export function parseIoStat(text: string): IoStatTotals {
  const totals: IoStatTotals = { rbytes: 0, wbytes: 0, rios: 0, wios: 0 };
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    for (let i = 1; i < fields.length; i++) {
      const eq = fields[i].indexOf("=");
      if (eq < 0) continue;
      const key = fields[i].slice(0, eq);
      if (key === "rbytes" || key === "wbytes" || key === "rios" || key === "wios") {
        const v = Number(fields[i].slice(eq + 1));
        if (Number.isFinite(v)) totals[key] += v;
      }
    }
  }
  return totals;
}

/** One line of a PSI file. */
export type PressureLine = { avg10: number; avg60: number; avg300: number; totalUsec: number };

/** A PSI file: `some …` and, where the kernel prints it, `full …`. */
export type Pressure = { some?: PressureLine; full?: PressureLine };

/**
 * Parse a pressure stall file (`cpu.pressure`, `memory.pressure`, `io.pressure`):
 * `some avg10=0.00 avg60=0.00 avg300=0.00 total=0` and a `full` line of the same shape.
 *
 * @example
 * ```ts
 * parsePressure("some avg10=1.50 avg60=0.20 avg300=0.00 total=12345\n").some?.avg10; // 1.5
 * ```
 */
export function parsePressure(text: string): Pressure {
  const out: Pressure = {};
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const kind = fields[0];
    if (kind !== "some" && kind !== "full") continue;
    const values: Record<string, number> = {};
    for (let i = 1; i < fields.length; i++) {
      const eq = fields[i].indexOf("=");
      if (eq > 0) values[fields[i].slice(0, eq)] = Number(fields[i].slice(eq + 1));
    }
    if (
      [values.avg10, values.avg60, values.avg300, values.total].some(
        (v) => v === undefined || Number.isNaN(v),
      )
    )
      continue;
    out[kind] = { avg10: values.avg10, avg60: values.avg60, avg300: values.avg300, totalUsec: values.total };
  }
  return out;
}

/**
 * Parse a single-value file that may say `max` (`memory.max`, `memory.swap.max`, `pids.max`).
 * Returns `null` for `max` (unlimited) and `undefined` when the text is not a number.
 *
 * @example
 * ```ts
 * parseMaxValue("max\n"); // null
 * parseMaxValue("1073741824\n"); // 1073741824
 * ```
 */
export function parseMaxValue(text: string): number | null | undefined {
  const t = text.trim();
  if (t === "max") return null;
  if (t === "") return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

/** A single number file such as `memory.current`; `undefined` if it is not a number. */
export function parseSingleValue(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

/**
 * Parse `cpu.max` (`$MAX $PERIOD`, default `max 100000`) into a number of cores, or `null` when
 * there is no limit.
 *
 * @example
 * ```ts
 * parseCpuMax("200000 100000\n"); // 2
 * parseCpuMax("max 100000\n"); // null
 * ```
 */
export function parseCpuMax(text: string): number | null | undefined {
  const [max, period] = text.trim().split(/\s+/);
  if (max === "max") return null;
  const quota = Number(max);
  const p = Number(period ?? "100000");
  if (!Number.isFinite(quota) || !Number.isFinite(p) || p <= 0) return undefined;
  return quota / p;
}
