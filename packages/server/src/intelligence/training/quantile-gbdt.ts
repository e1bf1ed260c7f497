import type { RegressionTree, TreeEnsemble } from "../model/tree-ensemble.js";
import { FeatureBins } from "./feature-bins.js";
import { growTree, leafQuantile, type TrainingRows } from "./tree-grower.js";

/** Options of {@link trainQuantileGbdt}. */
export type QuantileGbdtOptions = {
  /** The quantile to learn (pinball loss), e.g. 0.5. */
  quantile: number;
  /**
   * Number of boosting rounds.
   * @default 60
   */
  trees?: number;
  /**
   * Shrinkage applied to every tree.
   * @default 0.15
   */
  learningRate?: number;
  /**
   * Maximum depth of a tree.
   * @default 6
   */
  maxDepth?: number;
  /**
   * Fewest training rows in a leaf.
   * @default 40
   */
  minLeaf?: number;
  /**
   * Share of rows drawn (without replacement) for each tree.
   * @default 0.35
   */
  subsample?: number;
  /**
   * Histogram bins per feature, missing values included.
   * @default 64
   */
  bins?: number;
  /**
   * Seed of the row sampling.
   * @default 1
   */
  seed?: number;
};

/** Training data: features (a row-major float32 matrix, or its bins), targets, which are lower bounds. */
export type QuantileGbdtData = {
  y: Float64Array;
  /** 1 where `y` is a lower bound (killed job): it only pulls the prediction up. */
  censored: Uint8Array;
  featureNames: string[];
} & (
  | { x: Float32Array; bins?: FeatureBins }
  /** Pre-binned columns, to share one binning between several ensembles. */
  | { x?: undefined; bins: FeatureBins }
);

/**
 * Trains gradient-boosted regression trees for one quantile with the pinball loss, histogram-based
 * split finding and leaves set to the residual quantile (the LightGBM recipe). Censored rows are
 * lower bounds: they count only while the prediction is below them.
 *
 * @example
 * ```ts
 * const model = trainQuantileGbdt({ x, y, censored, featureNames }, { quantile: 0.9 });
 * evaluateEnsemble(model, row);
 * ```
 */
export function trainQuantileGbdt(data: QuantileGbdtData, options: QuantileGbdtOptions): TreeEnsemble {
  const tau = options.quantile;
  const nTrees = options.trees ?? 60;
  const lr = options.learningRate ?? 0.15;
  const subsample = options.subsample ?? 0.35;
  const features = data.featureNames.length;
  const n = data.y.length;
  const bins =
    data.x === undefined
      ? data.bins
      : (data.bins ?? new FeatureBins(data.x, n, features, options.bins ?? 64));
  const pred = new Float64Array(n);
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  const baseScore = leafQuantile(all, data.y, pred, data.censored, tau);
  pred.fill(baseScore);
  const grad = new Float64Array(n);
  const rng = mulberry32(options.seed ?? 1);
  const trees: RegressionTree[] = [];
  const bagSize = Math.max(1, Math.floor(n * subsample));
  for (let t = 0; t < nTrees; t++) {
    for (let i = 0; i < n; i++) {
      // Ties (frequent: jobs repeat their exact usage) get the zero subgradient, else one side wins.
      const d = data.y[i] - pred[i];
      grad[i] = d > 0 ? -tau : d < 0 && !data.censored[i] ? 1 - tau : 0;
    }
    const rows = sampleRows(n, bagSize, rng);
    const training: TrainingRows = { bins, grad, y: data.y, pred, censored: data.censored, tau };
    const tree = growTree(training, rows, {
      maxDepth: options.maxDepth ?? 6,
      minLeaf: options.minLeaf ?? 40,
    });
    trees.push(tree.tree);
    tree.addToPredictions(pred, lr);
  }
  return {
    baseScore: Math.fround(baseScore),
    learningRate: lr,
    trees,
    featureNames: data.featureNames,
    quantile: tau,
  };
}

function sampleRows(n: number, k: number, rng: () => number): Int32Array {
  if (k >= n) {
    const all = new Int32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    return all;
  }
  // Selection sampling keeps rows in ascending order, which keeps histogram passes cache-friendly.
  const out = new Int32Array(k);
  let chosen = 0;
  for (let i = 0; i < n && chosen < k; i++) {
    if (rng() * (n - i) < k - chosen) out[chosen++] = i;
  }
  return out;
}

/** Small, fast, seedable PRNG (Mulberry32). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
