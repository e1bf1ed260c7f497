import {
  binOf,
  type CalibrationExample,
  type ConformalBin,
  type ConformalTable,
  graceOf,
  jobCapOf,
  NO_GRACE,
} from "./conformal-table.js";

/**
 * Graces (log factors over the request) tried as the request's candidate in each cell, then the
 * model alone. Below 0: requests that hold with room to spare; above: requests a few jobs outrun.
 */
const GRACES = [-0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.2, 0.4, 0.7];

/** One example in a cell: its score, weight (usage) and what its value would be made of. */
type Scored = { z: number; w: number; y: number; m: number; s: number; logRequest: number; held: boolean };

/** How a cell uses the request: its grace, and whether it trusts a group's held record. */
export type CellChoice = { grace: number; held: boolean };

/**
 * Sets the upper score and the request's grace of every cell; returns each cell's sorted scores,
 * for its range. In a cell, each grace is tried: the jobs that outrun `request · e^grace` are
 * misses whatever the model says, so the upper score is the one that keeps the cell's misses (count
 * and usage) within the rates counting them; the grace (or none) with the least slack wins. Where
 * requests bound the jobs well the request is the candidate; where they do not, the model alone.
 * Each is tried with and without capping the jobs whose group's requests held (`held`) at their
 * request: a record that does not keep the cell's promise is not trusted there. `choices`, by
 * cell, skips the search (levels are searched with the choices fixed).
 */
export function fitBins(
  table: ConformalTable,
  examples: CalibrationExample[],
  choices?: readonly CellChoice[],
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
      held: e.held === true,
    });
  }
  const scores: number[][] = [];
  table.bins = cells.map((cell) => {
    cell.sort((a, b) => a.z - b.z);
    scores.push(cell.map((c) => c.z));
    return fitCell(table, cell, choices?.[scores.length - 1]);
  });
  fillEmptyBins(table);
  return scores;
}

function fitCell(table: ConformalTable, sorted: Scored[], fixed: CellChoice | undefined): ConformalBin {
  const n = sorted.length;
  const bin: ConformalBin = {
    n,
    upper: Number.POSITIVE_INFINITY,
    grace: NO_GRACE,
    low: Number.NEGATIVE_INFINITY,
    confidence: Number.NaN,
    confidenceCapped: Number.NaN,
    held: false,
  };
  if (n === 0) return bin;
  // Jobs the cell must cover: the finite-sample conformal count.
  const covered = Math.min(n, Math.ceil((1 - table.missRate) * (n + 1) - 1e-9));
  let total = 0;
  for (const c of sorted) total += c.w;
  let best = Number.POSITIVE_INFINITY;
  const tried: CellChoice[] = fixed
    ? [fixed, { grace: NO_GRACE, held: false }]
    : [NO_GRACE, ...GRACES].flatMap((grace) => [
        { grace, held: false },
        { grace, held: true },
      ]);
  for (const choice of tried) {
    const g = graceOf(table, choice.grace);
    const upper = upperWithCap(sorted, g, choice.held, covered, table.usageMissRate * total);
    if (upper === undefined) continue;
    // A fixed choice is kept whenever it is feasible; the model alone is its fallback.
    if (fixed) {
      bin.upper = upper;
      bin.grace = choice.grace;
      bin.held = choice.held;
      break;
    }
    const slack = slackOf(sorted, upper, g, choice.held);
    // Strictly less: on a tie the model alone (tried first) or the looser grace stays.
    if (slack < best) {
      best = slack;
      bin.upper = upper;
      bin.grace = choice.grace;
      bin.held = choice.held;
    }
  }
  return bin;
}

/**
 * The least upper score that, with values capped at `request · e^g`, covers `covered` jobs and
 * leaves at most `usageBudget` of usage above the value (0 or less: no usage bound); undefined when
 * the cap alone misses more than that.
 */
function upperWithCap(
  sorted: Scored[],
  g: number,
  useHeld: boolean,
  covered: number,
  usageBudget: number,
): number | undefined {
  let capMissedUsage = 0;
  const under: Scored[] = [];
  for (const c of sorted) {
    if (c.y > jobCapOf(c.logRequest, g, c.held, useHeld)) capMissedUsage += c.w;
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
function slackOf(sorted: Scored[], upper: number, g: number, useHeld: boolean): number {
  let over = 0;
  for (const c of sorted) {
    const value = Math.min(c.m + upper * c.s, jobCapOf(c.logRequest, g, c.held, useHeld));
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
    b.held = false;
    b.low = low;
  }
}

/** Score of a table with no examples at all: every job is too uncertain. */
const EMPTY_SCORE = 1e6;
