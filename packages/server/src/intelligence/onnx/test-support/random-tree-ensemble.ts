import type { RegressionTree, TreeEnsemble } from "../../model/tree-ensemble.js";

/*
 * Seeded random ensembles and feature rows for tests and benchmarks of the ONNX path. Rows are
 * drawn so that many values sit exactly on split thresholds or are NaN, the two cases where an
 * exporter most easily disagrees with evaluateTree.
 */

/** mulberry32: small, fast, good enough to make reproducible test data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type RandomEnsembleSpec = {
  featureCount: number;
  trees: number;
  maxDepth: number;
  /** Chance that a node above maxDepth becomes a leaf anyway (0 gives full trees). */
  leafChance: number;
  /** Candidate thresholds per feature; rows reuse them so inputs hit thresholds exactly. */
  thresholds: number[][];
  /** Shuffle node storage order (root stays 0) and add unreachable nodes. */
  scramble: boolean;
  quantile?: number;
};

/** Per feature, `count` thresholds; float32 values unless `float64` (then mostly not float32). */
export function randomThresholds(rng: () => number, featureCount: number, count: number, float64 = false) {
  return Array.from({ length: featureCount }, () =>
    Array.from({ length: count }, () => {
      const t = rng() * 20 - 10;
      return float64 ? t : Math.fround(t);
    }),
  );
}

export function randomEnsemble(rng: () => number, spec: RandomEnsembleSpec): TreeEnsemble {
  return {
    baseScore: rng() * 100 - 20,
    learningRate: 0.01 + rng() * 0.3,
    trees: Array.from({ length: spec.trees }, () => randomTree(rng, spec)),
    featureNames: Array.from({ length: spec.featureCount }, (_, i) => `f${i}`),
    quantile: spec.quantile ?? 0.5,
  };
}

function randomTree(rng: () => number, spec: RandomEnsembleSpec): RegressionTree {
  const tree: RegressionTree = { feature: [], threshold: [], left: [], right: [], value: [] };
  const grow = (depth: number): number => {
    const id = tree.feature.length;
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    if (depth >= spec.maxDepth || (depth > 0 && rng() < spec.leafChance)) {
      tree.value[id] = (rng() * 2 - 1) * 50;
      return id;
    }
    const f = Math.floor(rng() * spec.featureCount);
    tree.feature[id] = f;
    tree.threshold[id] = pick(rng, spec.thresholds[f]);
    tree.left[id] = grow(depth + 1);
    tree.right[id] = grow(depth + 1);
    return id;
  };
  grow(0);
  return spec.scramble ? scramble(rng, tree) : tree;
}

/** Random storage order with the root kept at 0, plus a few nodes nothing points to. */
function scramble(rng: () => number, tree: RegressionTree): RegressionTree {
  const size = tree.feature.length;
  const junk = Math.floor(rng() * 3);
  const order = [
    0,
    ...shuffle(
      rng,
      Array.from({ length: size - 1 + junk }, (_, i) => i + 1),
    ),
  ];
  const position = new Map(order.map((old, i) => [old, i]));
  const out: RegressionTree = { feature: [], threshold: [], left: [], right: [], value: [] };
  for (const old of order) {
    const real = old < size;
    out.feature.push(real ? tree.feature[old] : -1);
    out.threshold.push(real ? tree.threshold[old] : 0);
    out.left.push(real && tree.left[old] >= 0 ? position.get(tree.left[old])! : -1);
    out.right.push(real && tree.right[old] >= 0 ? position.get(tree.right[old])! : -1);
    out.value.push(real ? tree.value[old] : 1e6);
  }
  return out;
}

/** Row-major float32 rows: ~15% NaN, ~35% exactly a threshold, the rest uniform. */
export function randomRows(rng: () => number, rows: number, thresholds: number[][]): Float32Array {
  const featureCount = thresholds.length;
  const values = new Float32Array(rows * featureCount);
  for (let i = 0; i < values.length; i++) {
    const u = rng();
    const f = i % featureCount;
    values[i] = u < 0.15 ? Number.NaN : u < 0.5 ? pick(rng, thresholds[f]) : rng() * 24 - 12;
  }
  return values;
}

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

function shuffle<T>(rng: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
