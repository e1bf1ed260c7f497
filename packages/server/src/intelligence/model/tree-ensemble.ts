/**
 * A trained ensemble of regression trees, stored as flat node arrays so the same structure can be
 * evaluated in TypeScript and exported unchanged to ONNX (`ai.onnx.ml` TreeEnsembleRegressor).
 *
 * Node `i` of a tree is a leaf when `feature[i] === -1`; its output is `value[i]`. Otherwise the
 * sample goes to `left[i]` when `x[feature[i]] <= threshold[i]` **or when the feature is missing
 * (NaN)**, and to `right[i]` otherwise. Node 0 is the root.
 */
export type RegressionTree = {
  feature: number[];
  threshold: number[];
  left: number[];
  right: number[];
  value: number[];
};

/** An additive ensemble: `prediction = baseScore + learningRate * Σ tree(x)`. */
export type TreeEnsemble = {
  baseScore: number;
  learningRate: number;
  trees: RegressionTree[];
  /** Names of the input features, in column order. */
  featureNames: string[];
  /** The quantile the ensemble was trained for (pinball loss), e.g. 0.5 or 0.9. */
  quantile: number;
};

/** Output of one tree for one feature row. */
export function evaluateTree(tree: RegressionTree, x: ArrayLike<number>): number {
  let node = 0;
  for (;;) {
    const f = tree.feature[node];
    if (f === -1) return tree.value[node];
    const v = x[f];
    node = Number.isNaN(v) || v <= tree.threshold[node] ? tree.left[node] : tree.right[node];
  }
}

/** The ensemble's prediction for one feature row. */
export function evaluateEnsemble(model: TreeEnsemble, x: ArrayLike<number>): number {
  let sum = 0;
  for (const tree of model.trees) sum += evaluateTree(tree, x);
  return model.baseScore + model.learningRate * sum;
}
