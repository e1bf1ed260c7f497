import { quantileSorted } from "../stats/quantiles.js";
import { fitBinConfidence } from "./bin-confidence.js";
import { calibrateJob } from "./calibrate-job.js";
import { type CellChoice, fillEmptyBins, fitBins } from "./cell-scores.js";
import type { ConformalOptions } from "./conformal-options.js";
import { applyConformal, type CalibrationExample, type ConformalTable, excessOf } from "./conformal-table.js";
import { fitGroupFallback } from "./group-fallback.js";
import { type ConformalLevels, outOfTimeLevels } from "./out-of-time-levels.js";
import { fitRequestFallback } from "./request-fallback.js";

export type { ConformalOptions } from "./conformal-options.js";

/**
 * Fits the calibration: scores `(y − m) / s` are split into bins of similar spread, and in each the
 * upper score quantile is taken at the finite-sample conformal level `⌈(1−α)(n+1)⌉ / n`, so jobs of
 * erratic groups get wide bounds and repetitive ones tight bounds, each with the promised miss rate.
 * Examples must come in end order: the levels the quantiles are taken at are first corrected so
 * that tables fitted on older jobs keep the promises on the newer half, beyond sampling noise (see
 * {@link outOfTimeLevels}).
 *
 * @example
 * ```ts
 * const table = fitConformal(examples, { missRate: 0.01 });
 * const r = applyConformal(table, m, s, Math.log(request));
 * ```
 */
export function fitConformal(
  examples: CalibrationExample[],
  options: ConformalOptions = {},
  enforcedLimit = false,
  keepRequestAbove = options.keepRequestAbove,
): ConformalTable {
  const nominal: ConformalLevels = {
    missRate: options.missRate ?? 0.008,
    usageMissRate: options.usageMissRate ?? 0.015,
    rangeMiss: options.rangeMiss ?? 0.01,
  };
  const floor = options.spreadFloor ?? 0.02;
  const minPerBin = options.minPerBin ?? 400;
  const nSizes = Math.max(1, Math.min(options.sizeBins ?? 3, Math.floor(examples.length / minPerBin)));
  const nBins = Math.max(1, Math.min(options.bins ?? 6, Math.floor(examples.length / (minPerBin * nSizes))));
  const shape: TableShape = {
    spreadFloor: floor,
    binEdges: quantileEdges(
      examples.map((e) => Math.max(e.s, floor)),
      nBins,
    ),
    sizeEdges: quantileEdges(
      examples.map((e) => e.m),
      nSizes,
    ),
    abstainShare: options.abstainShare ?? 0.08,
    minPerBin,
    enforcedLimit,
    keepRequestFrom: keepFrom(keepRequestAbove),
  };
  // How each cell uses the request is chosen once, at the nominal levels on every example, and
  // fixed while the levels are searched: the search fits dozens of tables.
  const probe = fitAtLevels(examples, nominal, shape)(nominal.rangeMiss);
  shape.choices = probe.bins.map((b) => ({ grace: b.grace, held: b.held === true }));
  const fit = (ex: CalibrationExample[], levels: ConformalLevels) => fitAtLevels(ex, levels, shape);
  const check = options.outOfTimeCheck ?? true;
  const levels = check ? outOfTimeLevels(examples, nominal, fit) : nominal;
  const table = fit(examples, levels)(levels.rangeMiss);
  // The promises stay the nominal ones: the corrected levels are only how they are kept.
  table.missRate = nominal.missRate;
  table.usageMissRate = nominal.usageMissRate;
  table.nominalLevel = 1 - nominal.missRate - nominal.rangeMiss;
  // In-sample rates at the corrected levels. The newer half under the older half's table was tried
  // and promised far too little (CEA-Curie: 0.86 where 0.996 was observed): the drift it measures
  // is what the table fitted on both halves has already absorbed.
  fitBinConfidence(table, examples, minPerBin);
  const fallback = fitGroupFallback(table, examples, nominal.rangeMiss);
  if (fallback) table.groupFallback = fallback;
  const stillAbstained = examples.filter((e) => calibrateJob(table, e).tooUncertain);
  const byRequest = fitRequestFallback(table, stillAbstained, nominal.rangeMiss);
  if (byRequest) table.requestFallback = byRequest;
  return table;
}

/** The table's `keepRequestFrom` (log) of a share of the request (undefined or 0: never). */
function keepFrom(share: number | undefined): number | undefined {
  return share !== undefined && share > 0 ? Math.log(share) : undefined;
}

/** The bins of a table and its abstention share, fixed while levels are searched. */
type TableShape = {
  spreadFloor: number;
  binEdges: number[];
  sizeEdges: number[];
  abstainShare: number;
  minPerBin: number;
  enforcedLimit: boolean;
  keepRequestFrom: number | undefined;
  /** How each cell uses the request, once chosen; searched per fit while undefined. */
  choices?: CellChoice[];
};

/**
 * The table of `examples` at explicit upper levels, without confidences, as a function of the range
 * level: the range moves neither the value nor who abstains, so trying range levels is cheap.
 */
function fitAtLevels(
  examples: CalibrationExample[],
  levels: Omit<ConformalLevels, "rangeMiss">,
  shape: TableShape,
): (rangeMiss: number) => ConformalTable {
  const table: ConformalTable = {
    missRate: levels.missRate,
    usageMissRate: levels.usageMissRate,
    nominalLevel: Number.NaN,
    spreadFloor: shape.spreadFloor,
    enforcedLimit: shape.enforcedLimit,
    ...(shape.keepRequestFrom !== undefined && { keepRequestFrom: shape.keepRequestFrom }),
    binEdges: shape.binEdges,
    sizeEdges: shape.sizeEdges,
    bins: [],
    maxExcess: Number.MAX_VALUE,
    typicalSlack: 0,
    examples: examples.length,
  };
  let cells = fitBins(table, examples, shape.choices);
  // Abstain on the widest share, then refit on the jobs that will really be recommended.
  const abstainShare = shape.abstainShare;
  if (abstainShare > 0 && examples.length > 0) {
    let over = 0;
    let sum = 0;
    for (const e of examples) {
      const v = applyConformal(table, e.m, e.s, e.logRequest, false, Number.NaN, e.held).logModelValue;
      over += Math.max(Math.exp(v) - Math.exp(e.y), 0);
      sum += Math.exp(e.y);
    }
    table.typicalSlack = sum > 0 ? over / sum : 0;
    const excesses = sortedExcesses(table, examples);
    table.maxExcess = quantileSorted(excesses, 1 - abstainShare);
    const kept = examples.filter((e) => excess(table, e) <= table.maxExcess);
    const first = { bins: table.bins, cells };
    cells = fitBins(table, kept, shape.choices);
    // A cell the abstention nearly emptied keeps the bounds of all its jobs: refitted on the few
    // easy ones left, its bounds would shrink, the re-set threshold would let its hard jobs back in,
    // and they would be recommended with bounds they were never fitted to (LANL-CM5 memory: a cell
    // of 9 kept jobs let 750 through, 12% of them under-predicted at a promised 98%).
    table.bins.forEach((b, k) => {
      if (b.n >= shape.minPerBin || first.bins[k].n <= b.n) return;
      table.bins[k] = first.bins[k];
      cells[k] = first.cells[k];
    });
    // The refit moves the widths a little: set the threshold again so the promised share holds.
    const refit = sortedExcesses(table, examples);
    table.maxExcess = quantileSorted(refit, 1 - abstainShare);
  }
  if (table.bins.every((b) => b.n === 0)) table.maxExcess = -Number.MAX_VALUE;
  return (rangeMiss) => {
    const out = {
      ...table,
      nominalLevel: 1 - levels.missRate - rangeMiss,
      bins: table.bins.map((b) => ({ ...b })),
    };
    out.bins.forEach((b, k) => {
      const z = cells[k];
      b.low = z.length > 0 ? quantileSorted(z, rangeMiss) : Number.NEGATIVE_INFINITY;
    });
    fillEmptyBins(out);
    return out;
  };
}

function quantileEdges(unsorted: number[], bins: number): number[] {
  const values = Float64Array.from(unsorted).sort();
  const edges: number[] = [];
  for (let k = 1; k < bins; k++) {
    const edge = values[Math.floor((k * values.length) / bins)];
    if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
  }
  return edges;
}

/** Excesses of all examples, ascending (a typed array sorts numerically without a comparator). */
function sortedExcesses(table: ConformalTable, examples: CalibrationExample[]): Float64Array {
  const out = new Float64Array(examples.length);
  for (let k = 0; k < examples.length; k++) out[k] = excess(table, examples[k]);
  return out.sort();
}

function excess(table: ConformalTable, e: CalibrationExample): number {
  const r = applyConformal(table, e.m, e.s, e.logRequest, false, Number.NaN, e.held);
  return excessOf(table, e.m, r.logModelValue);
}

/**
 * The share of the request from which a fitted table keeps the request, for a refit of the same
 * model's calibration (undefined: never).
 *
 * @example
 * ```ts
 * fitConformal(newer, options, table.enforcedLimit, keptShare(table));
 * ```
 */
export function keptShare(table: Pick<ConformalTable, "keepRequestFrom">): number | undefined {
  return table.keepRequestFrom === undefined ? undefined : Math.exp(table.keepRequestFrom);
}
