// What a fitted calibration is and how one job is calibrated with it; fitting is in conformal.ts.

/**
 * One calibration example: the model's centre `m` and spread `s` (log scale), the observed log value
 * `y` of a completed job the model never trained on, and the log of the enforced limit (the
 * request; +Infinity when nothing caps the job). Lists of examples are in the jobs' end order.
 */
export type CalibrationExample = { m: number; s: number; y: number; logCap: number };

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

export function binOf(table: ConformalTable, m: number, s: number): number {
  let k = 0;
  while (k < table.binEdges.length && s >= table.binEdges[k]) k++;
  let z = 0;
  while (z < table.sizeEdges.length && m >= table.sizeEdges[z]) z++;
  return z * (table.binEdges.length + 1) + k;
}

export function excessOf(table: ConformalTable, m: number, logValue: number): number {
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
