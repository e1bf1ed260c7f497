import { applyConformal, type CalibrationExample, type ConformalTable } from "./conformal-table.js";

/** The rates a conformal table's quantiles are taken at. */
export type ConformalLevels = {
  /** Share of jobs allowed above the recommended value. */
  missRate: number;
  /** Share of usage allowed above the recommended value (0: no such bound). */
  usageMissRate: number;
  /** Share of jobs allowed below the range's low end. */
  rangeMiss: number;
};

/** Fewest examples in each half before the levels are corrected. */
const MIN_HALF = 1_000;
/**
 * Checks pooled per correction: the newer half is cut into this many consecutive chunks, each
 * checked under a table fitted on the half-pool of jobs just before it. A deployed table is used on
 * the jobs right after its pool, not half a pool later; and misses pooled over several tables
 * average out the luck of any one fit, so the level moves less with a single unlucky split.
 */
const SPLITS = 4;
/** Bisection steps of each level (on the log scale, between its bounds). */
const STEPS = 7;
/**
 * How far a level may move from its nominal value: a tenth of it at most (stricter: a newer half
 * whose misses no level reaches, a job far beyond anything seen, would otherwise drive the level to
 * zero and every value to the largest score), or twice it (looser, for the range only: a miss of
 * the upper bound kills a job, so that side never loosens).
 */
const MOST_STRICT = 0.1;
const MOST_LOOSE = 2;
/**
 * One-sided z of the check (95%): a level moves only when the checked rate lies further above the
 * nominal one than sampling noise explains, and only as far as needed to bring it back within that
 * noise. Read as exact, a few days holding one big miss that no level catches drove the usage level
 * to its strictest bound (LANL-CM5 memory: in 16% of recalibrations, for 1.73 slack instead of 1.30
 * and a weighted under-prediction already within goal); with the noise accounted for, 1%.
 */
const Z = 1.645;

/**
 * Misses of tables on the jobs they were checked on: shares are ratios of sums, each miss weighing
 * 1 (count, range) or its usage, so the squares of the weights say how noisy each share is.
 */
type Tally = {
  n: number;
  under: number;
  below: number;
  usage: number;
  usage2: number;
  usageMissed: number;
  usageMissed2: number;
};

/**
 * Corrects the levels a conformal table is fitted at so that its promises hold on jobs it never
 * saw, later in time: the newer half of the examples (in end order) is checked, chunk by chunk,
 * under tables fitted at candidate levels on the half-pool just before each chunk, and each level
 * is moved, by as little as possible, until the pooled rate is no longer significantly worse than
 * the nominal one (the range, which may also loosen, until it is within noise of it). A site whose
 * workload drifts, or whose biggest jobs are too few for their quantile to hold out of sample, gets
 * stricter levels; a stationary one keeps the nominal ones.
 *
 * @example
 * ```ts
 * const levels = outOfTimeLevels(examples, { missRate: 0.008, usageMissRate: 0.015, rangeMiss: 0.1 }, fit);
 * ```
 */
export function outOfTimeLevels(
  examples: CalibrationExample[],
  nominal: ConformalLevels,
  fit: (examples: CalibrationExample[], levels: ConformalLevels) => (rangeMiss: number) => ConformalTable,
): ConformalLevels {
  const half = Math.floor(examples.length / 2);
  if (half < MIN_HALF) return nominal;
  const chunk = Math.floor((examples.length - half) / SPLITS);
  const splits = Array.from({ length: SPLITS }, (_, j) => ({
    older: examples.slice(j * chunk, half + j * chunk),
    newer: examples.slice(half + j * chunk, j === SPLITS - 1 ? examples.length : half + (j + 1) * chunk),
  }));
  const pooled = (tables: (rangeMiss: number) => ConformalTable[], rangeMiss: number): Tally =>
    sum(tables(rangeMiss).map((t, j) => tally(t, splits[j].newer)));
  const fits = (levels: ConformalLevels) => {
    const fs = splits.map((s) => fit(s.older, levels));
    return (rangeMiss: number) => fs.map((f) => f(rangeMiss));
  };
  const missesOn = (levels: ConformalLevels) => pooled(fits(levels), levels.rangeMiss);
  // The count level first, without the usage bound; then the usage bound on top of it; then the
  // range of the table they make.
  const missRate = stricterIfNeeded(nominal.missRate, (l) => {
    const t = missesOn({ ...nominal, missRate: l, usageMissRate: 0 });
    return excessOver(nominal.missRate, t.n, t.n, t.under, t.under);
  });
  const usageMissRate =
    nominal.usageMissRate > 0
      ? stricterIfNeeded(nominal.usageMissRate, (l) => {
          const t = missesOn({ ...nominal, missRate, usageMissRate: l });
          return excessOver(nominal.usageMissRate, t.usage, t.usage2, t.usageMissed, t.usageMissed2);
        })
      : 0;
  const withRange = fits({ ...nominal, missRate, usageMissRate });
  const rangeMiss = withinNoise(nominal.rangeMiss, (l) => {
    const t = pooled(withRange, l);
    return excessOver(nominal.rangeMiss, t.n, t.n, t.below, t.below);
  });
  return { missRate, usageMissRate, rangeMiss };
}

/**
 * How many standard errors above `nominal` the missed share `missed / total` of weights lies
 * (`total2`, `missed2`: sums of the squared weights). The error is the larger of the share's
 * spread under the nominal rate and the spread of the misses observed: a share pushed over the
 * nominal one by a single job far bigger than the rest is as noisy as that job is heavy, and is no
 * evidence that every job needs a wider bound.
 */
export function excessOver(
  nominal: number,
  total: number,
  total2: number,
  missed: number,
  missed2: number,
): number {
  if (!(total > 0)) return 0;
  const r = missed / total;
  const underNominal = (nominal * (1 - nominal) * total2) / (total * total);
  const observed = ((1 - r) ** 2 * missed2 + r ** 2 * (total2 - missed2)) / (total * total);
  const se = Math.sqrt(Math.max(underNominal, observed));
  return se > 0 ? (r - nominal) / se : r > nominal ? Number.POSITIVE_INFINITY : 0;
}

/**
 * The nominal level unless the checked rate is significantly worse there; then the loosest level,
 * down to nominal × MOST_STRICT, at which it no longer is. `excess` (in standard errors) grows
 * with the level.
 */
function stricterIfNeeded(nominal: number, excess: (level: number) => number): number {
  return excess(nominal) <= Z
    ? nominal
    : loosest(Math.log(nominal * MOST_STRICT), Math.log(nominal), excess, Z);
}

/**
 * The range level: the nominal one while the checked rate is within noise of the nominal one,
 * otherwise the level, within [÷10, ×2] of nominal, that brings it to the nearer edge of the noise.
 */
function withinNoise(nominal: number, excess: (level: number) => number): number {
  const atNominal = excess(nominal);
  if (Math.abs(atNominal) <= Z) return nominal;
  return atNominal > Z
    ? loosest(Math.log(nominal * MOST_STRICT), Math.log(nominal), excess, Z)
    : loosest(Math.log(nominal), Math.log(nominal * MOST_LOOSE), excess, -Z);
}

/**
 * The loosest level in [e^lo, e^hi] whose excess is at most `bound` (the excess grows with the
 * level); e^lo when none is.
 */
function loosest(lo: number, hi: number, excess: (level: number) => number, bound: number): number {
  if (excess(Math.exp(hi)) <= bound) return Math.exp(hi);
  if (excess(Math.exp(lo)) > bound) return Math.exp(lo);
  for (let k = 0; k < STEPS; k++) {
    const mid = (lo + hi) / 2;
    if (excess(Math.exp(mid)) <= bound) lo = mid;
    else hi = mid;
  }
  return Math.exp(lo);
}

/** Misses of `table` on the examples it recommends for. */
function tally(table: ConformalTable, examples: CalibrationExample[]): Tally {
  const t: Tally = { n: 0, under: 0, below: 0, usage: 0, usage2: 0, usageMissed: 0, usageMissed2: 0 };
  for (const e of examples) {
    // The held cap lowers values, so its misses count; the need floor only raises them.
    const r = applyConformal(table, e.m, e.s, e.logRequest, true, Number.NaN, e.held);
    if (r.tooUncertain) continue;
    const w = Math.exp(e.y);
    t.n++;
    t.usage += w;
    t.usage2 += w * w;
    if (e.y > r.logValue) {
      t.under++;
      t.usageMissed += w;
      t.usageMissed2 += w * w;
    }
    if (e.y < r.logLow) t.below++;
  }
  return t;
}

function sum(tallies: Tally[]): Tally {
  return tallies.reduce((a, b) => ({
    n: a.n + b.n,
    under: a.under + b.under,
    below: a.below + b.below,
    usage: a.usage + b.usage,
    usage2: a.usage2 + b.usage2,
    usageMissed: a.usageMissed + b.usageMissed,
    usageMissed2: a.usageMissed2 + b.usageMissed2,
  }));
}
