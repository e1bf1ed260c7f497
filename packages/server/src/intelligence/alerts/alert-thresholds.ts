/**
 * The thresholds of the live rules, which the platform team sets in the server's configuration
 * (`alerts.*`, see the README); the defaults below are the configuration's, and a test keeps the
 * two equal.
 */
export type AlertThresholds = {
  /** gpus-idle: a GPU is idle below this utilisation (utilization.gpu, %). @default 5 */
  gpuIdlePercent: number;
  /** gpus-idle: every GPU of the job idle for this long fires. @default 30 */
  gpuIdleMinutes: number;
  /** memory-near-limit: memory at or above this share of its limit (memory.max, %). @default 90 */
  memoryPercentOfLimit: number;
  /** memory-near-limit: and rising so that it reaches the limit within this many minutes. @default 15 */
  memoryMinutesToLimit: number;
  /** memory-near-limit: the growth rate is a least-squares line over this many recent minutes. @default 10 */
  memoryFitMinutes: number;
  /** cores-idle: CPU use below this share of the reserved cores (%). @default 10 */
  coresIdlePercent: number;
  /** cores-idle: for this long fires. @default 30 */
  coresIdleMinutes: number;
  /** walltime-overrun: the rate of progress is a least-squares line over this many recent minutes. @default 30 */
  walltimeFitMinutes: number;
  /** walltime-overrun: fires when the projected end passes the walltime by more than this many minutes. @default 5 */
  walltimeMarginMinutes: number;
  /** repeated-oom: this many of the user's jobs of the same shape killed for memory… @default 3 */
  repeatedOomCount: number;
  /** repeated-oom: …within this many hours fires on their next job of that shape. @default 168 */
  repeatedOomWindowHours: number;
  /** A job whose last sample is older than this is no longer judged (it ended or stopped reporting). @default 10 */
  maxSampleAgeMinutes: number;
};

/** The defaults of {@link AlertThresholds}. */
export const DEFAULT_ALERT_THRESHOLDS: Readonly<AlertThresholds> = Object.freeze({
  gpuIdlePercent: 5,
  gpuIdleMinutes: 30,
  memoryPercentOfLimit: 90,
  memoryMinutesToLimit: 15,
  memoryFitMinutes: 10,
  coresIdlePercent: 10,
  coresIdleMinutes: 30,
  walltimeFitMinutes: 30,
  walltimeMarginMinutes: 5,
  repeatedOomCount: 3,
  repeatedOomWindowHours: 168,
  maxSampleAgeMinutes: 10,
});

/** How far back the rules look: the longest window any of them needs. */
export function lookbackMinutes(t: AlertThresholds): number {
  return Math.max(t.gpuIdleMinutes, t.coresIdleMinutes, t.memoryFitMinutes, t.walltimeFitMinutes);
}
