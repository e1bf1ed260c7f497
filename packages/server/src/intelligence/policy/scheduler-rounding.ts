import type { ResourceName } from "@jobsight/schemas";

/** The steps in which a scheduler takes each resource. */
export type Granularity = Record<ResourceName, number>;

/** Options of {@link granularityOf}. */
export type GranularityOptions = {
  /**
   * Memory and GPU memory are set in multiples of this many bytes.
   * @default 1048576 (1 MiB, SLURM's unit)
   */
  memoryGranularityBytes?: number;
  /**
   * Cores are set in multiples of this. Kubernetes takes millicores (0.001).
   * @default 1
   */
  coresGranularity?: number;
  /**
   * Walltime is set in multiples of this many seconds.
   * @default 60 (whole minutes, as `--time` takes it)
   */
  walltimeGranularitySeconds?: number;
};

/** The granularity of every resource from the options (GPUs are always whole devices). */
export function granularityOf(options: GranularityOptions = {}): Granularity {
  const memory = positiveOr(options.memoryGranularityBytes, 2 ** 20);
  return {
    memory,
    gpuMemory: memory,
    cores: positiveOr(options.coresGranularity, 1),
    gpus: 1,
    walltime: positiveOr(options.walltimeGranularitySeconds, 60),
  };
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

// Steps such as 0.001 are not exact in binary: compare with a tolerance of a millionth of a step
// and clean the product, so that 0.37 cores rounds to 0.37 and not to 0.371 or 0.37000000000000005.
const EPSILON = 1e-6;

function clean(steps: number, step: number): number {
  return Number.isInteger(step) ? steps * step : Number((steps * step).toPrecision(12));
}

// Whole-number steps (bytes, seconds, devices) are exact and need no tolerance.
const slack = (step: number) => (Number.isInteger(step) ? 0 : EPSILON);

/** The smallest multiple of `step` that is not below `value`. */
export function roundUpTo(value: number, step: number): number {
  return clean(Math.ceil(value / step - slack(step)), step);
}

/** The largest multiple of `step` that is not above `value`. */
export function roundDownTo(value: number, step: number): number {
  return clean(Math.floor(value / step + slack(step)), step);
}

/** Whether `value` is a multiple of `step`. */
export function isMultipleOf(value: number, step: number): boolean {
  const q = value / step;
  return Math.abs(q - Math.round(q)) <= slack(step);
}
