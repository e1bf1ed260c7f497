import type { ResourceName } from "../common.js";
import { countIn, parseQuantity, type QuantityUnit, readQuantity } from "./quantity.js";

/** The resources written to Kubernetes as quantities: bytes, cores and devices. */
export type QuantityKind = Extract<ResourceName, "memory" | "cores" | "gpus">;

// Float arithmetic leaves noise of a few ulps (0.8 * 3 is 2.4000000000000004): a count within
// 1e-14 of a whole number, relatively, is that number, so 2.4000000000000004 cores is 2400m and
// not 2401m. Looser (1e-12) took real bytes for noise in counts of ~1e10 (16679841.000000954 Mi).
const NOISE = 1e-14;

function nearestWhole(count: number): number | undefined {
  const whole = Math.round(count);
  return Math.abs(count - whole) <= whole * NOISE ? whole : undefined;
}

// Rounded up, never below what was asked for (but for float noise).
function wholeAtLeast(count: number): number {
  return nearestWhole(count) ?? Math.ceil(count);
}

function checkAmount(value: number, what: string): void {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${what}: a quantity is a finite amount of at least 0, got ${value}`);
  }
}

const KiB = 2 ** 10;
const MiB = 2 ** 20;
// Largest first: the suffix written is the largest that divides the amount exactly.
const BINARY_SUFFIXES = [
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", MiB],
  ["Ki", KiB],
] as const;

/**
 * Write memory as Kubernetes keeps it: whole bytes in the largest binary suffix (`Ki`, `Mi`, `Gi`,
 * `Ti`) that divides them exactly. An amount that is not a whole number of `Ki` is rounded up to a
 * whole `Mi`, so the result is never below `bytes` and less than one `Mi` above it.
 *
 * @example
 * ```ts
 * formatMemoryQuantity(24 * 2 ** 30); // "24Gi"
 * formatMemoryQuantity(1.5 * 2 ** 30); // "1536Mi"
 * formatMemoryQuantity(100e6); // "96Mi"
 * ```
 */
export function formatMemoryQuantity(bytes: number): string {
  checkAmount(bytes, "memory");
  let whole = wholeAtLeast(bytes);
  if (whole === 0) return "0";
  if (whole % KiB !== 0) whole = Math.ceil(whole / MiB) * MiB;
  const [suffix, size] = BINARY_SUFFIXES.find(([, size]) => whole % size === 0)!;
  return `${whole / size}${suffix}`;
}

/**
 * Write a CPU amount: whole cores as a plain number (`"32"`, not `"32000m"`), anything else in
 * millicores rounded up (`"1500m"`), the finest step Kubernetes keeps.
 *
 * @example
 * ```ts
 * formatCpuQuantity(4); // "4"
 * formatCpuQuantity(0.25); // "250m"
 * ```
 */
export function formatCpuQuantity(cores: number): string {
  checkAmount(cores, "cores");
  const milli = wholeAtLeast(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/**
 * Write an amount of a resource by the rules of its kind: memory by {@link formatMemoryQuantity},
 * cores by {@link formatCpuQuantity}, GPUs as a whole number of devices rounded up.
 *
 * @example
 * ```ts
 * formatQuantity(3 * 2 ** 30, "memory"); // "3Gi"
 * formatQuantity(1.5, "gpus"); // "2"
 * ```
 */
export function formatQuantity(value: number, kind: QuantityKind): string {
  if (kind === "memory") return formatMemoryQuantity(value);
  if (kind === "cores") return formatCpuQuantity(value);
  checkAmount(value, kind);
  return String(wholeAtLeast(value));
}

// How many of each kind's finest step make one: bytes, millicores, devices.
const STEPS_PER_UNIT: Record<QuantityKind, number> = { memory: 1, cores: 1000, gpus: 1 };

// `value` as a whole number of `unit`, when it is one and lands on a whole step of the kind (a
// unit finer than the resource has, nanocores or millibytes, may not).
function spellIn(unit: QuantityUnit, value: number, kind: QuantityKind): string | undefined {
  const count = nearestWhole(countIn(value, unit));
  if (count === undefined || count === 0 || count > Number.MAX_SAFE_INTEGER) return undefined;
  const text = `${count}${unit.suffix}`;
  const written = parseQuantity(text);
  return written !== undefined && nearestWhole(written * STEPS_PER_UNIT[kind]) !== undefined
    ? text
    : undefined;
}

/**
 * Write `value` in the unit `original` is written in, when it is a whole number there: `cpu: "2"`
 * and 3 cores give `"3"`, `memory: 4Gi` and 6 GiB give `"6Gi"`, `memory: 500M` and 6e8 bytes give
 * `"600M"`. Otherwise the amount is the one {@link formatQuantity} writes, still in the user's unit
 * when it is whole there (`1Ki` and 1e6 bytes give `"1024Ki"`), else as `formatQuantity` spells
 * it; so is an `original` that is not a quantity (absent, a template placeholder). The amount is
 * never below `value` and never above what `formatQuantity` writes.
 *
 * @example
 * ```ts
 * formatQuantityLike("4Gi", 6 * 2 ** 30, "memory"); // "6Gi"
 * formatQuantityLike("500m", 2, "cores"); // "2000m"
 * formatQuantityLike("2", 1.5, "cores"); // "1500m"
 * ```
 */
export function formatQuantityLike(original: unknown, value: number, kind: QuantityKind): string {
  const byRule = formatQuantity(value, kind);
  const text = typeof original === "number" ? String(original) : typeof original === "string" ? original : "";
  const unit = readQuantity(text.trim())?.unit;
  if (!unit) return byRule;
  return spellIn(unit, value, kind) ?? spellIn(unit, parseQuantity(byRule)!, kind) ?? byRule;
}

/**
 * The step a Kubernetes CPU amount was written in, read from the amount itself: whole cores for
 * `cpu: "32"`, tenths for `"1.5"`, hundredths for `"250m"` (0.25), millicores otherwise or when
 * nothing was asked. Advice for the job is rounded up to it, so an edit keeps the user's style
 * and writes exactly the advice (`"31"`, not `"30440m"`).
 *
 * @example
 * ```ts
 * cpuStepOf(32); // 1
 * cpuStepOf(1.5); // 0.1
 * cpuStepOf(undefined); // 0.001
 * ```
 */
export function cpuStepOf(cores: number | undefined): number {
  if (cores === undefined || !(cores > 0) || !Number.isFinite(cores)) return 0.001;
  for (const step of [1, 0.1, 0.01]) {
    const steps = cores / step;
    if (Math.abs(steps - Math.round(steps)) <= 1e-9 * Math.max(1, steps)) return step;
  }
  return 0.001;
}
