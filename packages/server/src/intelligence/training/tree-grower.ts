import type { RegressionTree } from "../model/tree-ensemble.js";
import type { FeatureBins } from "./feature-bins.js";

/** What one boosting round grows a tree from. */
export type TrainingRows = {
  bins: FeatureBins;
  /** Pinball-loss gradient of every row at the current prediction. */
  grad: Float64Array;
  y: Float64Array;
  pred: Float64Array;
  censored: Uint8Array;
  tau: number;
};

/** Options of {@link growTree}. */
export type GrowOptions = { maxDepth: number; minLeaf: number };

/** A grown tree, plus a fast way to find the leaf of a training row from its bins. */
export type GrownTree = { tree: RegressionTree; leafOfBinnedRow(row: number): number };

/**
 * Grows one regression tree depth-first on histograms of the gradient (unit hessian), using the
 * parent-minus-sibling trick, and sets each leaf to the `tau`-quantile of the residuals it holds.
 */
export function growTree(data: TrainingRows, rows: Int32Array, options: GrowOptions): GrownTree {
  const { bins } = data;
  const F = bins.features;
  const B = 64;
  const tree: RegressionTree = { feature: [], threshold: [], left: [], right: [], value: [] };
  const splitBin: number[] = [];

  const histogram = (subset: Int32Array): { g: Float64Array; c: Float64Array } => {
    const g = new Float64Array(F * B);
    const c = new Float64Array(F * B);
    const grad = data.grad;
    const binned = bins.bins;
    for (let k = 0; k < subset.length; k++) {
      const i = subset[k];
      const gi = grad[i];
      const row = i * F;
      for (let f = 0, off = 0; f < F; f++, off += B) {
        const b = off + binned[row + f];
        g[b] += gi;
        c[b] += 1;
      }
    }
    return { g, c };
  };

  const addNode = (): number => {
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    splitBin.push(-1);
    return tree.feature.length - 1;
  };

  const makeLeaf = (node: number, subset: Int32Array) => {
    tree.value[node] = Math.fround(leafQuantile(subset, data.y, data.pred, data.censored, data.tau));
  };

  const build = (subset: Int32Array, depth: number, hist: { g: Float64Array; c: Float64Array }): number => {
    const node = addNode();
    if (depth >= options.maxDepth || subset.length < 2 * options.minLeaf) {
      makeLeaf(node, subset);
      return node;
    }
    let gTotal = 0;
    for (let b = 0; b < B; b++) gTotal += hist.g[b];
    const nTotal = subset.length;
    const lambda = 1;
    const parentScore = (gTotal * gTotal) / (nTotal + lambda);
    let bestGain = 1e-9;
    let bestF = -1;
    let bestB = -1;
    for (let f = 0; f < F; f++) {
      const off = f * B;
      const nb = bins.edges[f].length + 2;
      let gl = 0;
      let nl = 0;
      for (let b = 0; b < nb - 1; b++) {
        gl += hist.g[off + b];
        nl += hist.c[off + b];
        if (nl < options.minLeaf) continue;
        const nr = nTotal - nl;
        if (nr < options.minLeaf) break;
        const gr = gTotal - gl;
        const gain = (gl * gl) / (nl + lambda) + (gr * gr) / (nr + lambda) - parentScore;
        if (gain > bestGain) {
          bestGain = gain;
          bestF = f;
          bestB = b;
        }
      }
    }
    if (bestF < 0) {
      makeLeaf(node, subset);
      return node;
    }
    const binned = bins.bins;
    let nLeft = 0;
    for (let k = 0; k < subset.length; k++) if (binned[subset[k] * F + bestF] <= bestB) nLeft++;
    const leftRows = new Int32Array(nLeft);
    const rightRows = new Int32Array(subset.length - nLeft);
    let li = 0;
    let ri = 0;
    for (let k = 0; k < subset.length; k++) {
      const i = subset[k];
      if (binned[i * F + bestF] <= bestB) leftRows[li++] = i;
      else rightRows[ri++] = i;
    }
    const leftSmaller = leftRows.length <= rightRows.length;
    const small = histogram(leftSmaller ? leftRows : rightRows);
    const large = { g: hist.g, c: hist.c };
    for (let k = 0; k < F * B; k++) {
      large.g[k] -= small.g[k];
      large.c[k] -= small.c[k];
    }
    tree.feature[node] = bestF;
    tree.threshold[node] = bins.threshold(bestF, bestB);
    splitBin[node] = bestB;
    const l = build(leftRows, depth + 1, leftSmaller ? small : large);
    const r = build(rightRows, depth + 1, leftSmaller ? large : small);
    tree.left[node] = l;
    tree.right[node] = r;
    return node;
  };

  build(rows, 0, histogram(rows));

  const feature = Int32Array.from(tree.feature);
  const left = Int32Array.from(tree.left);
  const right = Int32Array.from(tree.right);
  const cut = Int32Array.from(splitBin);
  const binned = bins.bins;
  const leafOfBinnedRow = (row: number): number => {
    let node = 0;
    const base = row * F;
    for (;;) {
      const f = feature[node];
      if (f === -1) return node;
      node = binned[base + f] <= cut[node] ? left[node] : right[node];
    }
  };
  return { tree, leafOfBinnedRow };
}

/**
 * The `tau`-quantile of the residuals `y - pred` of some rows. A censored row's residual is only a
 * lower bound, so it takes part only while it is positive (the prediction is below the bound).
 */
export function leafQuantile(
  rows: Int32Array,
  y: Float64Array,
  pred: Float64Array,
  censored: Uint8Array,
  tau: number,
): number {
  const r: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k];
    const d = y[i] - pred[i];
    if (censored[i] && d <= 0) continue;
    r.push(d);
  }
  if (r.length === 0) return 0;
  r.sort((a, b) => a - b);
  const pos = (r.length - 1) * tau;
  const lo = Math.floor(pos);
  const hi = Math.min(r.length - 1, lo + 1);
  return r[lo] + (r[hi] - r[lo]) * (pos - lo);
}
