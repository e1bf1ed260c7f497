import { upperQuantileSorted } from "../stats/quantiles.js";
import { binOf, type CalibrationExample, type ConformalTable } from "./conformal-table.js";

/** Sets the upper score of every cell; returns each cell's sorted scores, for its range. */
export function fitBins(table: ConformalTable, examples: CalibrationExample[]): number[][] {
  const cells: { z: number; w: number }[][] = Array.from(
    { length: (table.binEdges.length + 1) * (table.sizeEdges.length + 1) },
    () => [],
  );
  for (const e of examples) {
    const s = Math.max(e.s, table.spreadFloor);
    cells[binOf(table, e.m, s)].push({ z: (e.y - e.m) / s, w: Math.exp(e.y) });
  }
  const scores: number[][] = [];
  table.bins = cells.map((cell) => {
    cell.sort((a, b) => a.z - b.z);
    const z = cell.map((c) => c.z);
    scores.push(z);
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
      low: Number.NEGATIVE_INFINITY,
      high: Number.POSITIVE_INFINITY,
      confidence: Number.NaN,
      confidenceCapped: Number.NaN,
    };
  });
  fillEmptyBins(table);
  return scores;
}

/**
 * An empty cell takes the most cautious bounds of the others (or abstains everywhere when all are
 * empty), with finite numbers only so the table survives JSON.
 */
export function fillEmptyBins(table: ConformalTable): void {
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
}

/** Score of a table with no examples at all: every job is too uncertain. */
const EMPTY_SCORE = 1e6;

/**
 * The smallest score that leaves at most `missRate` of the cell's usage (not count) above it: a
 * miss on a job twice as big as usual costs twice as much work, so the big ones set the bound too.
 */
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
