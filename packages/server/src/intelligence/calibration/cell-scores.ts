import {
  binOf,
  type CalibrationExample,
  type ConformalBin,
  type ConformalTable,
  capOf,
  graceOf,
  NO_GRACE,
} from "./conformal-table.js";

/**
 * Graces (log factors over the request) tried as the request's candidate in each cell, then the
 * model alone. Below 0: requests that hold with room to spare; above: requests a few jobs outrun.
 */
const GRACES = [-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.4, 0.7];

/** One example in a cell: its score, weight (usage) and what its value would be made of. */
type Scored = { z: number; w: number; y: number; m: number; s: number; logRequest: number };

/**
 * Sets the upper score and the request's grace of every cell; returns each cell's sorted scores,
 * for its range. In a cell, each grace is tried: the jobs that outrun `request · e^grace` are
 * misses whatever the model says, so the upper score is the one that keeps the cell's misses (count
 * and usage) within the rates counting them; the grace (or none) with the least slack wins. Where
 * requests bound the jobs well the request is the candidate; where they do not, the model alone.
 * `graces`, by cell, skips the search (levels are searched with the graces held).
 */
export function fitBins(
  table: ConformalTable,
  examples: CalibrationExample[],
  graces?: readonly number[],
): number[][] {
  const cells: Scored[][] = Array.from(
    { length: (table.binEdges.length + 1) * (table.sizeEdges.length + 1) },
    () => [],
  );
  for (const e of examples) {
    const s = Math.max(e.s, table.spreadFloor);
    cells[binOf(table, e.m, s)].push({
      z: (e.y - e.m) / s,
      w: Math.exp(e.y),
      y: e.y,
      m: e.m,
      s,
      logRequest: e.logRequest,
    });
  }
  const scores: number[][] = [];
  table.bins = cells.map((cell) => {
    cell.sort((a, b) => a.z - b.z);
    scores.push(cell.map((c) => c.z));
    return fitCell(table, cell, graces?.[scores.length - 1]);
  });
  fillEmptyBins(table);
  return scores;
}

function fitCell(table: ConformalTable, sorted: Scored[], held: number | undefined): ConformalBin {
  const n = sorted.length;
  const bin: ConformalBin = {
    n,
    upper: Number.POSITIVE_INFINITY,
    grace: NO_GRACE,
    low: Number.NEGATIVE_INFINITY,
    confidence: Number.NaN,
    confidenceCapped: Number.NaN,
  };
  if (n === 0) return bin;
  // Jobs the cell must cover: the finite-sample conformal count.
  const covered = Math.min(n, Math.ceil((1 - table.missRate) * (n + 1) - 1e-9));
  let total = 0;
  for (const c of sorted) total += c.w;
  let best = Number.POSITIVE_INFINITY;
  for (const grace of held !== undefined ? [held, NO_GRACE] : [NO_GRACE, ...GRACES]) {
    const g = graceOf(table, grace);
    const upper = upperWithCap(sorted, g, covered, table.usageMissRate * total);
    if (upper === undefined) continue;
    // A held grace is kept whenever it is feasible; the model alone is its fallback.
    if (held !== undefined) {
      bin.upper = upper;
      bin.grace = grace;
      break;
    }
    const slack = slackOf(sorted, upper, g);
    // Strictly less: on a tie the model alone (tried first) or the looser grace stays.
    if (slack < best) {
      best = slack;
      bin.upper = upper;
      bin.grace = grace;
    }
  }
  return bin;
}

/**
 * The least upper score that, with values capped at `request · e^g`, covers `covered` jobs and
 * leaves at most `usageBudget` of usage above the value (0 or less: no usage bound); undefined when
 * the cap alone misses more than that.
 */
function upperWithCap(sorted: Scored[], g: number, covered: number, usageBudget: number): number | undefined {
  let capMissedUsage = 0;
  const under: Scored[] = [];
  for (const c of sorted) {
    if (c.y > capOf(c.logRequest, g)) capMissedUsage += c.w;
    else under.push(c);
  }
  if (covered > under.length) return undefined;
  if (under.length === 0) return Number.NEGATIVE_INFINITY;
  let upper = covered > 0 ? under[covered - 1].z : Number.NEGATIVE_INFINITY;
  if (usageBudget > 0) {
    const budget = usageBudget - capMissedUsage;
    if (budget < 0) return undefined;
    let above = 0;
    for (let k = under.length - 1; k >= 0; k--) {
      above += under[k].w;
      if (above > budget) {
        upper = Math.max(upper, under[k].z);
        break;
      }
    }
  }
  return upper;
}

/** Σ over-provision of the cell's jobs at an upper score and cap (what the grace is chosen by). */
function slackOf(sorted: Scored[], upper: number, g: number): number {
  let over = 0;
  for (const c of sorted) {
    const value = Math.min(c.m + upper * c.s, capOf(c.logRequest, g));
    if (value > c.y) over += Math.exp(value) - c.w;
  }
  return over;
}

/**
 * An empty cell takes the most cautious bounds of the others (or abstains everywhere when all are
 * empty), with finite numbers only so the table survives JSON.
 */
export function fillEmptyBins(table: ConformalTable): void {
  const full = table.bins.filter((b) => b.n > 0);
  const upper = full.length > 0 ? Math.max(...full.map((b) => b.upper)) : EMPTY_SCORE;
  const low = full.length > 0 ? Math.min(...full.map((b) => b.low)) : -EMPTY_SCORE;
  for (const b of table.bins) {
    if (b.n > 0) continue;
    b.upper = upper;
    b.grace = NO_GRACE;
    b.low = low;
  }
}

/** Score of a table with no examples at all: every job is too uncertain. */
const EMPTY_SCORE = 1e6;
