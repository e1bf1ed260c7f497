import { quantileSorted, upperQuantileSorted } from "../stats/quantiles.js";

/**
 * One calibration example: the model's centre `m` and spread `s` (log scale), the observed log value
 * `y` of a completed job the model never trained on, and the log of the enforced limit (the
 * request; +Infinity when nothing caps the job).
 */
export type CalibrationExample = { m: number; s: number; y: number; logCap: number };

/** Options of {@link fitConformal}. */
export type ConformalOptions = {
  /**
   * Share of recommended jobs allowed to need more than the recommended value, per bin.
   * @default 0.008
   */
  missRate?: number;
  /**
   * Share of the [low, high] range's misses: nominal range coverage is 1 − this.
   * @default 0.1
   */
  rangeMiss?: number;
  /**
   * Mondrian bins of the spread (difficulty); each gets its own score quantiles.
   * @default 6
   */
  bins?: number;
  /**
   * Bins of the predicted size (centre `m`), crossed with the spread bins: big jobs weigh most in
   * the weighted under-prediction, so they get quantiles of their own.
   * @default 3
   */
  sizeBins?: number;
  /**
   * Fewest calibration examples per bin (bins merge below it).
   * @default 400
   */
  minPerBin?: number;
  /**
   * Share of jobs, the widest, for which the predictor abstains instead of guessing wide.
   * @default 0.08
   */
  abstainShare?: number;
  /**
   * Also bound the share of usage (not only of jobs) that is under-predicted, per bin, at this rate
   * (0 turns it off).
   * @default 0.015
   */
  usageMissRate?: number;
  /**
   * Smallest spread used to scale scores (log scale).
   * @default 0.02
   */
  spreadFloor?: number;
};

/** Score quantiles of one Mondrian bin. */
export type ConformalBin = {
  /** Examples that set the quantiles. */
  n: number;
  upper: number;
  low: number;
  high: number;
  /** Observed share of examples not under-predicted, uncapped and capped (empty cells: NaN). */
  confidence: number;
  confidenceCapped: number;
};

/** A fitted locally-weighted, Mondrian conformal calibration: plain data, JSON-serialisable. */
export type ConformalTable = {
  missRate: number;
  usageMissRate: number;
  nominalLevel: number;
  spreadFloor: number;
  /** Upper spread edge of each spread bin but the last (ascending). */
  binEdges: number[];
  /** Upper centre edge of each size bin but the last (ascending). */
  sizeEdges: number[];
  bins: ConformalBin[];
  /**
   * Largest expected excess the predictor will recommend with; above it, it abstains. The excess
   * of a job is `e^m · (e^(log value − m) − 1 − typicalSlack)`: how much more it would waste than
   * the typical job, in the resource's unit, so the big and wide guesses go first.
   */
  maxExcess: number;
  /** Σ over-provision / Σ usage on the calibration jobs before abstention. */
  typicalSlack: number;
  examples: number;
};

/** Where a job lands once calibrated: log bounds, its bin, and whether it abstains. */
export type ConformalResult = {
  logValue: number;
  logLow: number;
  logHigh: number;
  capped: boolean;
  confidence: number;
  bin: number;
  tooUncertain: boolean;
};

/**
 * Fits the calibration: scores `(y − m) / s` are split into bins of similar spread, and in each the
 * upper score quantile is taken at the finite-sample conformal level `⌈(1−α)(n+1)⌉ / n`, so jobs of
 * erratic groups get wide bounds and repetitive ones tight bounds, each with the promised miss rate.
 *
 * @example
 * ```ts
 * const table = fitConformal(examples, { missRate: 0.01 });
 * const r = applyConformal(table, m, s, Math.log(request));
 * ```
 */
export function fitConformal(examples: CalibrationExample[], options: ConformalOptions = {}): ConformalTable {
  const missRate = options.missRate ?? 0.008;
  const rangeMiss = options.rangeMiss ?? 0.1;
  const floor = options.spreadFloor ?? 0.02;
  const minPerBin = options.minPerBin ?? 400;
  const nSizes = Math.max(1, Math.min(options.sizeBins ?? 3, Math.floor(examples.length / minPerBin)));
  const nBins = Math.max(1, Math.min(options.bins ?? 6, Math.floor(examples.length / (minPerBin * nSizes))));
  const binEdges = quantileEdges(
    examples.map((e) => Math.max(e.s, floor)),
    nBins,
  );
  const sizeEdges = quantileEdges(
    examples.map((e) => e.m),
    nSizes,
  );
  const table: ConformalTable = {
    missRate,
    usageMissRate: options.usageMissRate ?? 0.015,
    nominalLevel: 1 - rangeMiss,
    spreadFloor: floor,
    binEdges,
    sizeEdges,
    bins: [],
    maxExcess: Number.MAX_VALUE,
    typicalSlack: 0,
    examples: examples.length,
  };
  fitBins(table, examples, rangeMiss);
  // Abstain on the widest share, then refit on the jobs that will really be recommended.
  const abstainShare = options.abstainShare ?? 0.08;
  if (abstainShare > 0 && examples.length > 0) {
    let over = 0;
    let sum = 0;
    for (const e of examples) {
      const v = applyConformal(table, e.m, e.s, e.logCap, false).logValue;
      over += Math.max(Math.exp(v) - Math.exp(e.y), 0);
      sum += Math.exp(e.y);
    }
    table.typicalSlack = sum > 0 ? over / sum : 0;
    const excesses = examples.map((e) => excess(table, e)).sort((a, b) => a - b);
    table.maxExcess = quantileSorted(excesses, 1 - abstainShare);
    const kept = examples.filter((e) => excess(table, e) <= table.maxExcess);
    fitBins(table, kept, rangeMiss);
    // The refit moves the widths a little: set the threshold again so the promised share holds.
    const refit = examples.map((e) => excess(table, e)).sort((a, b) => a - b);
    table.maxExcess = quantileSorted(refit, 1 - abstainShare);
  }
  fitConfidence(table, examples);
  return table;
}

function fitBins(table: ConformalTable, examples: CalibrationExample[], rangeMiss: number): void {
  const cells: { z: number; w: number }[][] = Array.from(
    { length: (table.binEdges.length + 1) * (table.sizeEdges.length + 1) },
    () => [],
  );
  for (const e of examples) {
    const s = Math.max(e.s, table.spreadFloor);
    cells[binOf(table, e.m, s)].push({ z: (e.y - e.m) / s, w: Math.exp(e.y) });
  }
  table.bins = cells.map((cell) => {
    cell.sort((a, b) => a.z - b.z);
    const z = cell.map((c) => c.z);
    const n = z.length;
    const level = Math.min(1, ((1 - table.missRate) * (n + 1)) / Math.max(n, 1));
    return {
      n,
      upper:
        n > 0
          ? Math.max(
              upperQuantileSorted(z, level),
              table.usageMissRate > 0 ? weightedUpper(cell, table.usageMissRate) : Number.NEGATIVE_INFINITY,
            )
          : Number.POSITIVE_INFINITY,
      low: n > 0 ? quantileSorted(z, rangeMiss / 2) : Number.NEGATIVE_INFINITY,
      high: n > 0 ? quantileSorted(z, 1 - rangeMiss / 2) : Number.POSITIVE_INFINITY,
      confidence: Number.NaN,
      confidenceCapped: Number.NaN,
    };
  });
  fillEmptyBins(table);
}

/**
 * The smallest score that leaves at most `missRate` of the cell's usage (not count) above it: a
 * miss on a job twice as big as usual costs twice as much work, so the big ones set the bound too.
 */
/**
 * An empty cell takes the most cautious bounds of the others (or abstains everywhere when all are
 * empty), with finite numbers only so the table survives JSON.
 */
function fillEmptyBins(table: ConformalTable): void {
  const full = table.bins.filter((b) => b.n > 0);
  const upper = full.length > 0 ? Math.max(...full.map((b) => b.upper)) : EMPTY_SCORE;
  const low = full.length > 0 ? Math.min(...full.map((b) => b.low)) : -EMPTY_SCORE;
  const high = full.length > 0 ? Math.max(...full.map((b) => b.high)) : EMPTY_SCORE;
  for (const b of table.bins) {
    if (b.n > 0) continue;
    b.upper = upper;
    b.low = low;
    b.high = high;
  }
  if (full.length === 0) table.maxExcess = -Number.MAX_VALUE;
}

/** Score of a table with no examples at all: every job is too uncertain. */
const EMPTY_SCORE = 1e6;

function weightedUpper(sorted: { z: number; w: number }[], missRate: number): number {
  let total = 0;
  for (const c of sorted) total += c.w;
  let above = 0;
  for (let k = sorted.length - 1; k >= 0; k--) {
    above += sorted[k].w;
    if (above > missRate * total) return sorted[k].z;
  }
  return sorted.length > 0 ? sorted[0].z : Number.NEGATIVE_INFINITY;
}

function fitConfidence(table: ConformalTable, examples: CalibrationExample[]): void {
  const counts = table.bins.map(() => ({ n: 0, ok: 0, nc: 0, okc: 0 }));
  for (const e of examples) {
    const r = applyConformal(table, e.m, e.s, e.logCap);
    if (r.tooUncertain) continue;
    const c = counts[r.bin];
    const ok = e.y <= r.logValue ? 1 : 0;
    if (r.capped) {
      c.nc++;
      c.okc += ok;
    } else {
      c.n++;
      c.ok += ok;
    }
  }
  let n = 0;
  let ok = 0;
  for (const c of counts) {
    n += c.n + c.nc;
    ok += c.ok + c.okc;
  }
  // Small cells borrow strength from the whole table (20 pseudo-jobs at the overall rate), so a
  // cell of five jobs with one miss does not promise 80%.
  const overall = n > 0 ? ok / n : 1 - table.missRate;
  const prior = 20;
  table.bins.forEach((b, k) => {
    const c = counts[k];
    b.confidence = (c.ok + prior * overall) / (c.n + prior);
    b.confidenceCapped = (c.okc + prior * overall) / (c.nc + prior);
  });
}

function binOf(table: ConformalTable, m: number, s: number): number {
  let k = 0;
  while (k < table.binEdges.length && s >= table.binEdges[k]) k++;
  let z = 0;
  while (z < table.sizeEdges.length && m >= table.sizeEdges[z]) z++;
  return z * (table.binEdges.length + 1) + k;
}

function quantileEdges(values: number[], bins: number): number[] {
  values.sort((a, b) => a - b);
  const edges: number[] = [];
  for (let k = 1; k < bins; k++) {
    const edge = values[Math.floor((k * values.length) / bins)];
    if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
  }
  return edges;
}

function excess(table: ConformalTable, e: CalibrationExample): number {
  const r = applyConformal(table, e.m, e.s, e.logCap, false);
  return excessOf(table, e.m, r.logValue);
}

function excessOf(table: ConformalTable, m: number, logValue: number): number {
  return Math.exp(m) * (Math.exp(logValue - m) - 1 - table.typicalSlack);
}

/** Calibrated bounds of one job from its model centre `m`, spread `s` and enforced limit. */
export function applyConformal(
  table: ConformalTable,
  m: number,
  s: number,
  logCap: number,
  checkWidth = true,
): ConformalResult {
  const spread = Math.max(s, table.spreadFloor);
  const bin = binOf(table, m, spread);
  const b = table.bins[bin];
  const raw = m + b.upper * spread;
  const capped = raw >= logCap;
  const logValue = capped ? logCap : raw;
  const logHigh = Math.min(m + b.high * spread, logCap);
  const logLow = Math.min(m + b.low * spread, logHigh);
  const tooUncertain = checkWidth && !(excessOf(table, m, logValue) <= table.maxExcess);
  return {
    logValue,
    logLow,
    logHigh,
    capped,
    confidence: capped ? b.confidenceCapped : b.confidence,
    bin,
    tooUncertain,
  };
}
