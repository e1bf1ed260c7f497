// What a fitted calibration is and how one job is calibrated with it; fitting is in conformal.ts.

/**
 * One calibration example: the model's centre `m` and spread `s` (log scale), the observed log value
 * `y` of a completed job the model never trained on, the log of the job's request of the resource
 * (NaN when it asked for none), the floor its value would get (`need`, from `recentNeedFloor`;
 * NaN or absent: none), whether its group's recent jobs all stayed within their requests (`held`,
 * from `requestHeld`) and its group's largest recent use (`group`, log, from `groupRecord`; NaN or
 * absent: no record). Lists of examples are in the jobs' end order.
 */
export type CalibrationExample = {
  m: number;
  s: number;
  y: number;
  logRequest: number;
  need?: number;
  held?: boolean;
  group?: number;
  /** The spread (log standard deviation) of the group's recent uses; NaN or absent: unknown. */
  groupSpread?: number;
};

/**
 * Log grace over the request of a kept request where the site does not enforce limits: jobs there
 * outrun their request by a little (HPC2N walltime: a median of 46 s).
 */
export const KEEP_REQUEST_GRACE = 0.02;

/** A bin's grace when the request is not a candidate there: the model's value alone. */
export const NO_GRACE = 1e6;

/**
 * Calibration of the group's own record, for the jobs the model is too unsure of: log margins over
 * the largest use among the group's recent jobs (`group` of an example) that bounded those jobs at
 * the table's miss rate (`upper`) and at the range's (`low`), and the measured share of them inside
 * (fitted and applied in `group-fallback.ts`).
 */
export type GroupFallback = GroupFallbackBand & {
  /**
   * The same margins fitted per band of the group's spread (ascending upper edges; the last band is
   * open), for jobs whose group spread is known; absent where too few jobs allowed two bands.
   */
  bySpread?: { edges: number[]; bands: GroupFallbackBand[] };
};

/**
 * The request as the candidate for jobs the table and the group's record both abstain on: margins
 * over the request (`y − log request`) for jobs whose group stayed within its requests (`held`)
 * and for the others, each present only where it bounded such jobs at the table's miss rate with
 * at most {@link KEEP_REQUEST_GRACE} over the request (fitted and applied in `request-fallback.ts`).
 */
export type RequestFallback = { held?: GroupFallbackBand; other?: GroupFallbackBand };

/** Margins and measured confidence of the group's record over one set of calibration jobs. */
export type GroupFallbackBand = {
  upper: number;
  low: number;
  confidence: number;
  n: number;
  /**
   * Median score: `anchor + centre` is the band's own estimate of a job's use, from which the
   * request fallback measures its waste. Absent in tables fitted before: the model's centre.
   */
  centre?: number;
};

/** Score quantiles of one Mondrian bin. */
export type ConformalBin = {
  /** Examples that set the quantiles. */
  n: number;
  /** Score of the recommended value: `m + upper · s`. */
  upper: number;
  /**
   * The request as a candidate: the value is at most `request · e^grace`, where that bounded the
   * bin's jobs at the same risk with less slack than the model alone ({@link NO_GRACE}: never).
   */
  grace: number;
  /** Score of the range's low end; the range's high end is the recommended value. */
  low: number;
  /**
   * A job whose group's recent jobs all stayed within their requests gets at most its request
   * (plus {@link KEEP_REQUEST_GRACE}): chosen where that kept the cell's promise with less slack.
   * Absent in tables fitted before the rule: never.
   */
  held?: boolean;
  /** Measured share of examples inside [low, value], uncapped and capped by the request. */
  confidence: number;
  confidenceCapped: number;
};

/** A fitted locally-weighted, Mondrian conformal calibration: plain data, JSON-serialisable. */
export type ConformalTable = {
  missRate: number;
  usageMissRate: number;
  /** Share of jobs the range [low, value] is meant to contain. */
  nominalLevel: number;
  spreadFloor: number;
  /** The cluster kills jobs at their request: a value is never above it. */
  enforcedLimit: boolean;
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
  /**
   * Log share of its request from which a job keeps its request: a model value at least
   * `request · e^keepRequestFrom` is raised to the request ({@link KEEP_REQUEST_GRACE} over it where
   * limits are not enforced). Absent: never. See `ResourceSpec.keepRequestAbove`.
   */
  keepRequestFrom?: number;
  /** Σ over-provision / Σ usage on the calibration jobs before abstention. */
  typicalSlack: number;
  /** The group's record, calibrated for the jobs the table abstains on. Absent: they abstain. */
  groupFallback?: GroupFallback;
  /** The request, calibrated for the jobs the group's record abstains on too. Absent: they abstain. */
  requestFallback?: RequestFallback;
  examples: number;
  /**
   * What the tables in service stated and delivered on jobs that have since ended (see
   * `delivered-confidence.ts`). Absent: nothing ended under a table yet.
   */
  delivered?: DeliveredRecord;
  /**
   * The confidence stated for a calibrated one: `delivered[k]` for `stated[k]` (ascending),
   * interpolated between. Absent: the calibrated confidence is stated as it is.
   */
  restated?: { stated: number[]; delivered: number[] };
};

/**
 * Per bucket of stated confidence (of the stated miss, smallest first): the jobs served, how many
 * of them used no more than their value, and the sum of the confidences stated; counts may be
 * fractional once older ones are scaled down.
 */
export type DeliveredRecord = { jobs: number[]; met: number[]; stated: number[] };

/** Where a job lands once calibrated: log bounds, its bin, and whether it abstains. */
export type ConformalResult = {
  logValue: number;
  /** The value before the floors (the request kept, the recent need): what abstention judges. */
  logModelValue: number;
  logLow: number;
  /** The value is the request's candidate (`request · e^grace`), not the model's own bound. */
  capped: boolean;
  /** The cap, when it is the request itself: a value at it must equal the request exactly. */
  atRequest: boolean;
  confidence: number;
  bin: number;
  tooUncertain: boolean;
  /** The value is the group's record plus its calibrated margin (see `applyGroupFallback`). */
  fromGroup?: boolean;
  /** The value is the request times its calibrated margin (see `applyRequestFallback`). */
  fromRequest?: boolean;
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

/** The log grace over the request a bin's values are capped at (+Infinity: none). */
export function graceOf(table: Pick<ConformalTable, "enforcedLimit">, grace: number): number {
  const g = grace >= NO_GRACE ? Number.POSITIVE_INFINITY : grace;
  return table.enforcedLimit ? Math.min(g, 0) : g;
}

/** The log value a bin caps a job at: its request plus the grace (+Infinity: no request, no cap). */
export function capOf(logRequest: number, grace: number): number {
  return Number.isNaN(logRequest) ? Number.POSITIVE_INFINITY : logRequest + grace;
}

/**
 * The log value a job is capped at in a cell: the cell's request candidate, and where the cell
 * trusts a held record (`useHeld`) and the job's group has one, its request plus the keep grace.
 */
export function jobCapOf(logRequest: number, grace: number, held: boolean, useHeld: boolean): number {
  const cap = capOf(logRequest, grace);
  return held && useHeld ? Math.min(cap, capOf(logRequest, KEEP_REQUEST_GRACE)) : cap;
}

/**
 * Calibrated bounds of one job from its model centre `m`, spread `s` and log request (NaN: none):
 * the value is the bin's upper score, or the request's candidate where that is lower (in cells that
 * trust it, a `held` job's request plus the keep grace is one such candidate); it is then
 * raised to the request where it came close to it (`keepRequestFrom`), and never left below the
 * job's recent-need floor `need` (log; NaN: none); the range runs from the bin's low score up to
 * the value. Whether it is too uncertain is judged on the model's value before the floors: they
 * rest on the request and the group's own jobs, not on the model's spread.
 */
export function applyConformal(
  table: ConformalTable,
  m: number,
  s: number,
  logRequest: number,
  checkWidth = true,
  need = Number.NaN,
  held = false,
): ConformalResult {
  const spread = Math.max(s, table.spreadFloor);
  const bin = binOf(table, m, spread);
  const b = table.bins[bin];
  const raw = m + b.upper * spread;
  const grace = graceOf(table, b.grace);
  const cap = jobCapOf(logRequest, grace, held, b.held === true);
  let capped = raw >= cap;
  let logValue = capped ? cap : raw;
  // A relative hair of tolerance: the threshold is some calibration job's own excess, which the
  // float32 ONNX trees must not push over it when that job is asked again.
  const limit = table.maxExcess + 1e-5 * Math.abs(table.maxExcess);
  const tooUncertain = checkWidth && !(excessOf(table, m, logValue) <= limit);
  let atRequest = capped && cap === logRequest;
  // The range's low end is the model's own, before any floor: the floor lifts only the value.
  const logLow = Math.min(m + b.low * spread, logValue);
  const logModelValue = logValue;
  // Close to its request, a job's risk of running to it outweighs what a lower value would save.
  if (!capped && table.keepRequestFrom !== undefined && logValue >= logRequest + table.keepRequestFrom) {
    const kept = table.enforcedLimit ? logRequest : logRequest + KEEP_REQUEST_GRACE;
    if (kept > logValue) {
      logValue = kept;
      capped = true;
      atRequest = table.enforcedLimit;
    }
  }
  if (need > logValue) {
    logValue = need;
    // Where limits are enforced the floor is the request itself (see recentNeedFloor).
    atRequest = table.enforcedLimit && need === logRequest;
    capped = atRequest;
  }
  return {
    logValue,
    logModelValue,
    logLow,
    capped,
    atRequest,
    confidence: capped ? b.confidenceCapped : b.confidence,
    bin,
    tooUncertain,
  };
}
