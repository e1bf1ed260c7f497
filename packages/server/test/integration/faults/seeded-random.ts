import { randomInt } from "node:crypto";

/** A seeded source of random numbers: the same seed replays the same fault schedule. */
export type SeededRandom = {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
};

/**
 * mulberry32: tiny, fast and good enough to spread fault timings; not for anything secret.
 *
 * @example
 * ```ts
 * const rng = seededRandom(42);
 * const delayMs = rng.between(200, 2_000);
 * ```
 */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    seed,
    next,
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
  };
}

/** The seed of this run: `JOBSIGHT_FAULTS_SEED` to replay one, else a fresh one. */
export function faultSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.JOBSIGHT_FAULTS_SEED;
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new TypeError(`JOBSIGHT_FAULTS_SEED must be an integer ≥ 0`);
    return seed;
  }
  return randomInt(0, 2 ** 31);
}
