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

/** A grown tree, plus a fast way to add it to the predictions of every training row from their bins. */
export type GrownTree = { tree: RegressionTree; addToPredictions(pred: Float64Array, rate: number): void };

// Buffers reused from tree to tree (training is single-threaded per thread, and each worker
// thread has its own module): a tree's histograms and row lists were megabytes of garbage.
let histogramSize = 0;
const freeHistograms: Float64Array[] = [];
let rightScratch = new Int32Array(0);

/**
 * Grows one regression tree depth-first on histograms of the gradient (unit hessian), using the
 * parent-minus-sibling trick, and sets each leaf to the `tau`-quantile of the residuals it holds.
 * `rows` is reordered in place (each node's rows end up contiguous).
 */
export function growTree(data: TrainingRows, rows: Int32Array, options: GrowOptions): GrownTree {
  const { bins } = data;
  const F = bins.features;
  const B = 64;
  const tree: RegressionTree = { feature: [], threshold: [], left: [], right: [], value: [] };
  const splitBin: number[] = [];

  const size = F * B * 2;
  if (histogramSize !== size) {
    histogramSize = size;
    freeHistograms.length = 0;
  }
  const release = (h: Float64Array) => {
    freeHistograms.push(h);
  };
  // One interleaved array (gradient sum, count) per bin keeps a row's updates within a cache line.
  const histogram = (subset: Int32Array): Float64Array => {
    const h = freeHistograms.pop()?.fill(0) ?? new Float64Array(size);
    const grad = data.grad;
    const binned = bins.bins;
    for (let k = 0; k < subset.length; k++) {
      const i = subset[k];
      const gi = grad[i];
      const row = i * F;
      for (let f = 0, off = 0; f < F; f++, off += 2 * B) {
        const b = off + 2 * binned[row + f];
        h[b] += gi;
        h[b + 1] += 1;
      }
    }
    return h;
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

  const willSplit = (rows: number, depth: number) => depth < options.maxDepth && rows >= 2 * options.minLeaf;

  // `hist` is null exactly when the node cannot split, so leaves never pay for a histogram.
  const build = (subset: Int32Array, depth: number, hist: Float64Array | null): number => {
    const node = addNode();
    if (hist === null || !willSplit(subset.length, depth)) {
      if (hist !== null) release(hist);
      makeLeaf(node, subset);
      return node;
    }
    let gTotal = 0;
    for (let b = 0; b < B; b++) gTotal += hist[2 * b];
    const nTotal = subset.length;
    const lambda = 1;
    const parentScore = (gTotal * gTotal) / (nTotal + lambda);
    let bestGain = 1e-9;
    let bestF = -1;
    let bestB = -1;
    for (let f = 0; f < F; f++) {
      const off = 2 * f * B;
      const nb = bins.edges[f].length + 2;
      let gl = 0;
      let nl = 0;
      for (let b = 0; b < nb - 1; b++) {
        gl += hist[off + 2 * b];
        nl += hist[off + 2 * b + 1];
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
      release(hist);
      makeLeaf(node, subset);
      return node;
    }
    // A stable partition in place: each side keeps the rows' order, so sums add up as before.
    const binned = bins.bins;
    let nLeft = 0;
    let nRight = 0;
    for (let k = 0; k < subset.length; k++) {
      const i = subset[k];
      if (binned[i * F + bestF] <= bestB) subset[nLeft++] = i;
      else rightScratch[nRight++] = i;
    }
    subset.set(rightScratch.subarray(0, nRight), nLeft);
    const leftRows = subset.subarray(0, nLeft);
    const rightRows = subset.subarray(nLeft);
    const leftSmaller = leftRows.length <= rightRows.length;
    const smallNeeds = willSplit(Math.min(nLeft, subset.length - nLeft), depth + 1);
    const largeNeeds = willSplit(Math.max(nLeft, subset.length - nLeft), depth + 1);
    // The larger child's histogram is the parent's minus the smaller's (built even for a leaf: cheaper).
    const small = largeNeeds || smallNeeds ? histogram(leftSmaller ? leftRows : rightRows) : null;
    let large: Float64Array | null = null;
    if (largeNeeds && small) {
      large = hist;
      for (let k = 0; k < 2 * F * B; k++) large[k] -= small[k];
    } else release(hist);
    tree.feature[node] = bestF;
    tree.threshold[node] = bins.threshold(bestF, bestB);
    splitBin[node] = bestB;
    const l = build(leftRows, depth + 1, leftSmaller ? small : large);
    const r = build(rightRows, depth + 1, leftSmaller ? large : small);
    tree.left[node] = l;
    tree.right[node] = r;
    return node;
  };

  if (rightScratch.length < rows.length) rightScratch = new Int32Array(rows.length);
  build(rows, 0, histogram(rows));

  const feature = Int32Array.from(tree.feature);
  const left = Int32Array.from(tree.left);
  const right = Int32Array.from(tree.right);
  const cut = Int32Array.from(splitBin);
  const binned = bins.bins;
  const value = Float64Array.from(tree.value);
  // Walks every row down the tree in one tight loop over typed arrays (no call per row).
  const addToPredictions = (pred: Float64Array, rate: number): void => {
    const rows = pred.length;
    for (let row = 0, base = 0; row < rows; row++, base += F) {
      let node = 0;
      let f = feature[0];
      while (f !== -1) {
        node = binned[base + f] <= cut[node] ? left[node] : right[node];
        f = feature[node];
      }
      pred[row] += rate * value[node];
    }
  };
  return { tree, addToPredictions };
}

/** Residuals of the leaf being set; grown, never shrunk, and reused (training is single-threaded). */
let scratch = new Float64Array(1024);

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
  // A typed buffer sorts natively (no comparator calls): the same order, several times faster.
  if (scratch.length < rows.length) scratch = new Float64Array(Math.max(rows.length, 2 * scratch.length));
  let m = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k];
    const d = y[i] - pred[i];
    if (censored[i] && d <= 0) continue;
    scratch[m++] = d;
  }
  if (m === 0) return 0;
  const r = scratch.subarray(0, m).sort();
  const pos = (r.length - 1) * tau;
  const lo = Math.floor(pos);
  const hi = Math.min(r.length - 1, lo + 1);
  return r[lo] + (r[hi] - r[lo]) * (pos - lo);
}
