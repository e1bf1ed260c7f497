import type { RegressionTree, TreeEnsemble } from "../model/tree-ensemble.js";
import { OnnxExportError } from "./onnx-errors.js";

/**
 * An ensemble in the column layout of `ai.onnx.ml` TreeEnsembleRegressor, still in float64.
 * Node ids are renumbered densely per tree in depth-first pre-order, root first, because ONNX
 * Runtime takes the first node of each tree as its root and resolves child ids against the total
 * node count; unreachable nodes of the source arrays are dropped.
 */
export type FlatTreeEnsemble = {
  treeIds: number[];
  nodeIds: number[];
  featureIds: number[];
  /** `BRANCH_LEQ` or `LEAF` per node. */
  modes: ("BRANCH_LEQ" | "LEAF")[];
  /** Split thresholds; 0 for leaves. */
  thresholds: number[];
  trueNodeIds: number[];
  falseNodeIds: number[];
  targetTreeIds: number[];
  targetNodeIds: number[];
  /** Leaf outputs already multiplied by the learning rate. */
  targetWeights: number[];
  baseScore: number;
};

/**
 * Checks an ensemble and lays it out as TreeEnsembleRegressor columns.
 * `path` prefixes every error, e.g. `outputs[1].ensemble`.
 */
export function flattenTreeEnsemble(ensemble: TreeEnsemble, path: string): FlatTreeEnsemble {
  const featureCount = ensemble.featureNames.length;
  if (featureCount === 0) throw new OnnxExportError(`${path}.featureNames`, "must name at least one feature");
  if (!Number.isFinite(ensemble.baseScore)) throw new OnnxExportError(`${path}.baseScore`, "must be finite");
  if (!Number.isFinite(ensemble.learningRate)) {
    throw new OnnxExportError(`${path}.learningRate`, "must be finite");
  }
  const flat: FlatTreeEnsemble = {
    treeIds: [],
    nodeIds: [],
    featureIds: [],
    modes: [],
    thresholds: [],
    trueNodeIds: [],
    falseNodeIds: [],
    targetTreeIds: [],
    targetNodeIds: [],
    targetWeights: [],
    baseScore: ensemble.baseScore,
  };
  ensemble.trees.forEach((tree, t) => {
    appendTree(flat, tree, t, featureCount, ensemble.learningRate, `${path}.trees[${t}]`);
  });
  // TreeEnsembleRegressor needs at least one tree; a constant model is one leaf worth 0.
  if (ensemble.trees.length === 0) appendLeaf(flat, 0, 0, 0);
  return flat;
}

function appendTree(
  flat: FlatTreeEnsemble,
  tree: RegressionTree,
  treeId: number,
  featureCount: number,
  learningRate: number,
  path: string,
): void {
  const size = tree.feature.length;
  if (size === 0) throw new OnnxExportError(`${path}.feature`, "a tree needs at least one node");
  for (const key of ["threshold", "left", "right", "value"] as const) {
    if (tree[key].length !== size) {
      throw new OnnxExportError(`${path}.${key}`, `has ${tree[key].length} entries, feature has ${size}`);
    }
  }
  const order = preOrder(tree, featureCount, path);
  const newId = new Map(order.map((node, i) => [node, i]));
  for (const node of order) {
    const f = tree.feature[node];
    if (f === -1) {
      appendLeaf(flat, treeId, newId.get(node)!, tree.value[node] * learningRate);
      continue;
    }
    flat.treeIds.push(treeId);
    flat.nodeIds.push(newId.get(node)!);
    flat.featureIds.push(f);
    flat.modes.push("BRANCH_LEQ");
    flat.thresholds.push(tree.threshold[node]);
    flat.trueNodeIds.push(newId.get(tree.left[node])!);
    flat.falseNodeIds.push(newId.get(tree.right[node])!);
  }
}

function appendLeaf(flat: FlatTreeEnsemble, treeId: number, nodeId: number, weight: number): void {
  flat.treeIds.push(treeId);
  flat.nodeIds.push(nodeId);
  flat.featureIds.push(0);
  flat.modes.push("LEAF");
  flat.thresholds.push(0);
  flat.trueNodeIds.push(0);
  flat.falseNodeIds.push(0);
  flat.targetTreeIds.push(treeId);
  flat.targetNodeIds.push(nodeId);
  flat.targetWeights.push(weight);
}

/** Reachable nodes, root first, left subtree before right; rejects shared nodes and cycles. */
function preOrder(tree: RegressionTree, featureCount: number, path: string): number[] {
  const size = tree.feature.length;
  const seen = new Uint8Array(size);
  const order: number[] = [];
  const stack = [0];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen[node] === 1) {
      throw new OnnxExportError(path, `node ${node} is reached twice; a tree must not share nodes or loop`);
    }
    seen[node] = 1;
    order.push(node);
    const f = tree.feature[node];
    if (f === -1) {
      if (!Number.isFinite(tree.value[node])) {
        throw new OnnxExportError(`${path}.value[${node}]`, "leaf value must be finite");
      }
      continue;
    }
    if (!Number.isInteger(f) || f < 0 || f >= featureCount) {
      throw new OnnxExportError(
        `${path}.feature[${node}]`,
        `must be -1 or a feature index below ${featureCount}`,
      );
    }
    if (Number.isNaN(tree.threshold[node])) {
      throw new OnnxExportError(`${path}.threshold[${node}]`, "split threshold must not be NaN");
    }
    for (const side of ["right", "left"] as const) {
      const child = tree[side][node];
      if (!Number.isInteger(child) || child < 0 || child >= size) {
        throw new OnnxExportError(`${path}.${side}[${node}]`, `must be a node index below ${size}`);
      }
      stack.push(child);
    }
  }
  return order;
}
