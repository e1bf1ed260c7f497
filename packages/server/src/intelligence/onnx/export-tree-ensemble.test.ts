import { afterEach, describe, expect, it } from "vitest";
import { evaluateEnsemble, evaluateTree, type TreeEnsemble } from "../model/tree-ensemble.js";
import {
  exportTreeEnsemblesToOnnx,
  exportTreeEnsembleToOnnx,
  ONNX_IR_VERSION,
} from "./export-tree-ensemble.js";
import { OnnxErrorCode, OnnxExportError } from "./onnx-errors.js";
import { OnnxModelRunner } from "./onnx-model-runner.js";
import { decodeModelProto } from "./onnx-proto.js";
import {
  randomEnsemble,
  randomRows,
  randomThresholds,
  seededRandom,
} from "./test-support/random-tree-ensemble.js";
import type { OnnxTreePrecision } from "./tree-ensemble-regressor-node.js";

const runners: OnnxModelRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
});

async function load(bytes: Uint8Array): Promise<OnnxModelRunner> {
  const runner = await OnnxModelRunner.load(bytes, { intraOpNumThreads: 1 });
  runners.push(runner);
  return runner;
}

function row(values: Float32Array, featureCount: number, r: number): Float32Array {
  return values.subarray(r * featureCount, (r + 1) * featureCount);
}

/**
 * float64 export: one float32 rounding of an exact sum, so plain relative 1e-5.
 * float32 export: leaf weights are summed in float32, whose error grows with the magnitude of the
 * terms rather than of the result, so the bound is relative to |base| + lr * Σ|tree(x)|.
 */
function tolerance(model: TreeEnsemble, x: ArrayLike<number>, precision: OnnxTreePrecision): number {
  if (precision === "float64") return 1e-5 * Math.abs(evaluateEnsemble(model, x)) + 1e-30;
  let magnitude = 0;
  for (const tree of model.trees) magnitude += Math.abs(evaluateTree(tree, x));
  return 1e-5 * (Math.abs(model.baseScore) + Math.abs(model.learningRate) * magnitude);
}

describe.each(["float64", "float32"] as const)("exportTreeEnsembleToOnnx (%s)", (precision) => {
  it("agrees with evaluateEnsemble on thousands of float32 rows, NaN and threshold-equal inputs included", async () => {
    const rng = seededRandom(precision === "float64" ? 1 : 2);
    let rowsChecked = 0;
    let nanInputs = 0;
    let thresholdHits = 0;
    for (let trial = 0; trial < 12; trial++) {
      const featureCount = 1 + Math.floor(rng() * 12);
      const thresholds = randomThresholds(rng, featureCount, 6);
      const model = randomEnsemble(rng, {
        featureCount,
        trees: 1 + Math.floor(rng() * 40),
        maxDepth: Math.floor(rng() * 9),
        leafChance: rng() * 0.4,
        thresholds,
        scramble: trial % 2 === 0,
      });
      const runner = await load(exportTreeEnsembleToOnnx(model, { precision }));
      const rows = 400;
      const values = randomRows(rng, rows, thresholds);
      const { value } = await runner.run(values, featureCount);
      expect(value).toHaveLength(rows);
      for (let r = 0; r < rows; r++) {
        const x = row(values, featureCount, r);
        const expected = evaluateEnsemble(model, x);
        const diff = Math.abs(value[r] - expected);
        if (diff > tolerance(model, x, precision)) {
          expect.fail(
            `trial ${trial} row ${r}: onnx ${value[r]} vs typescript ${expected} for [${x.join(", ")}]`,
          );
        }
        x.forEach((v, f) => {
          if (Number.isNaN(v)) nanInputs++;
          else if (thresholds[f].includes(v)) thresholdHits++;
        });
      }
      rowsChecked += rows;
    }
    expect(rowsChecked).toBeGreaterThanOrEqual(4800);
    expect(nanInputs).toBeGreaterThan(1000);
    expect(thresholdHits).toBeGreaterThan(1000);
  });

  it("sends NaN and values equal to the threshold left, larger values right", async () => {
    const model: TreeEnsemble = {
      baseScore: 1,
      learningRate: 0.5,
      featureNames: ["x"],
      quantile: 0.5,
      trees: [
        {
          feature: [0, -1, -1],
          threshold: [1.5, 0, 0],
          left: [1, -1, -1],
          right: [2, -1, -1],
          value: [0, 10, 20],
        },
      ],
    };
    const runner = await load(exportTreeEnsembleToOnnx(model, { precision }));
    const inputs = [
      Number.NaN,
      1.5,
      Math.fround(1.5000001),
      Number.NEGATIVE_INFINITY,
      Number.POSITIVE_INFINITY,
    ];
    const { value } = await runner.run(new Float32Array(inputs), 1);
    expect(value).toEqual(inputs.map((x) => evaluateEnsemble(model, [x])));
    expect(new Set(value)).toEqual(new Set([6, 11]));
  });

  it("keeps the split of a float64 threshold that float32 cannot represent", async () => {
    const rng = seededRandom(precision === "float64" ? 3 : 4);
    const thresholds = randomThresholds(rng, 3, 5, true);
    const model = randomEnsemble(rng, {
      featureCount: 3,
      trees: 30,
      maxDepth: 4,
      leafChance: 0,
      thresholds,
      scramble: false,
    });
    // Inputs on both float32 neighbours of every threshold.
    const values: number[] = [];
    for (const t of thresholds.flat()) {
      const up = Math.fround(t);
      const down = up > t ? up - 2 ** (Math.floor(Math.log2(Math.abs(up))) - 23) : up;
      for (const v of [up, down]) values.push(v, v, v);
    }
    const runner = await load(exportTreeEnsembleToOnnx(model, { precision }));
    const input = new Float32Array(values);
    const { value } = await runner.run(input, 3);
    value.forEach((v, r) => {
      const x = row(input, 3, r);
      expect(Math.abs(v - evaluateEnsemble(model, x))).toBeLessThanOrEqual(tolerance(model, x, precision));
    });
  });
});

describe("exportTreeEnsemblesToOnnx", () => {
  it("serves several ensembles as named outputs of one model, with metadata", async () => {
    const rng = seededRandom(5);
    const thresholds = randomThresholds(rng, 6, 8);
    const spec = { featureCount: 6, maxDepth: 5, leafChance: 0.2, thresholds, scramble: true };
    const outputs = [
      { name: "memory_q50", ensemble: randomEnsemble(rng, { ...spec, trees: 20, quantile: 0.5 }) },
      { name: "memory_q90", ensemble: randomEnsemble(rng, { ...spec, trees: 25, quantile: 0.9 }) },
      { name: "walltime_q90", ensemble: randomEnsemble(rng, { ...spec, trees: 0, quantile: 0.9 }) },
    ];
    const bytes = exportTreeEnsemblesToOnnx(outputs, {
      modelVersion: "2025-06-01.3",
      trainingDataRange: { start: "2025-03-01T00:00:00Z", end: "2025-05-31T23:59:59Z" },
      metadata: { cluster: "hpc-a" },
    });
    const runner = await load(bytes);
    expect(runner.outputNames).toEqual(outputs.map((o) => o.name));
    expect(runner.metadata).toMatchObject({
      modelVersion: "2025-06-01.3",
      featureNames: ["f0", "f1", "f2", "f3", "f4", "f5"],
      trainingDataStart: "2025-03-01T00:00:00Z",
      trainingDataEnd: "2025-05-31T23:59:59Z",
      outputs: [
        { name: "memory_q50", quantile: 0.5, trees: 20 },
        { name: "memory_q90", quantile: 0.9, trees: 25 },
        { name: "walltime_q90", quantile: 0.9, trees: 0 },
      ],
    });
    expect(runner.metadata.props.cluster).toBe("hpc-a");
    expect(decodeModelProto(bytes).ir_version).toBe(ONNX_IR_VERSION);

    const values = randomRows(rng, 1000, thresholds);
    const result = await runner.run(values, 6);
    for (const { name, ensemble } of outputs) {
      expect(result[name]).toHaveLength(1000);
      result[name].forEach((v, r) => {
        const expected = evaluateEnsemble(ensemble, row(values, 6, r));
        expect(Math.abs(v - expected)).toBeLessThanOrEqual(1e-5 * Math.abs(expected));
      });
    }
  });

  it("rejects ensembles that cannot be exported, naming the offending field", () => {
    const stump = (): TreeEnsemble => ({
      baseScore: 0,
      learningRate: 1,
      featureNames: ["a", "b"],
      quantile: 0.5,
      trees: [
        {
          feature: [1, -1, -1],
          threshold: [0, 0, 0],
          left: [1, -1, -1],
          right: [2, -1, -1],
          value: [0, 1, 2],
        },
      ],
    });
    const failure = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const cases: [string, (m: TreeEnsemble) => void, string][] = [
      ["cycle", (m) => (m.trees[0].right[0] = 0), "outputs[0].ensemble.trees[0]"],
      ["child out of range", (m) => (m.trees[0].left[0] = 7), "outputs[0].ensemble.trees[0].left[0]"],
      ["unknown feature", (m) => (m.trees[0].feature[0] = 2), "outputs[0].ensemble.trees[0].feature[0]"],
      [
        "NaN threshold",
        (m) => (m.trees[0].threshold[0] = Number.NaN),
        "outputs[0].ensemble.trees[0].threshold[0]",
      ],
      ["ragged arrays", (m) => m.trees[0].value.pop(), "outputs[0].ensemble.trees[0].value"],
      [
        "infinite leaf",
        (m) => (m.trees[0].value[2] = Number.POSITIVE_INFINITY),
        "outputs[0].ensemble.trees[0].value[2]",
      ],
    ];
    for (const [, mutate, path] of cases) {
      const model = stump();
      mutate(model);
      const error = failure(() => exportTreeEnsembleToOnnx(model));
      expect(error).toBeInstanceOf(OnnxExportError);
      expect(error).toMatchObject({ code: OnnxErrorCode.invalidEnsemble, path });
    }
    const other = { ...stump(), featureNames: ["a", "c"] };
    expect(
      failure(() =>
        exportTreeEnsemblesToOnnx([
          { name: "q50", ensemble: stump() },
          { name: "q90", ensemble: other },
        ]),
      ),
    ).toMatchObject({ path: "outputs[1].ensemble.featureNames" });
    expect(
      failure(() =>
        exportTreeEnsemblesToOnnx([
          { name: "q50", ensemble: stump() },
          { name: "q50", ensemble: stump() },
        ]),
      ),
    ).toMatchObject({ path: "outputs[1].name" });
    expect(
      failure(() => exportTreeEnsembleToOnnx(stump(), { metadata: { "jobsight.x": "y" } })),
    ).toMatchObject({
      path: "metadata.jobsight.x",
    });
  });
});
