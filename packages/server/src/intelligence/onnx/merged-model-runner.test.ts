import { afterEach, describe, expect, it } from "vitest";
import { evaluateEnsemble, type TreeEnsemble } from "../model/tree-ensemble.js";
import { exportTreeEnsemblesToOnnx } from "./export-tree-ensemble.js";
import { mergeOnnxModels } from "./merge-onnx-models.js";
import { MergedModelRunner, type MergedModelRunnerOptions } from "./merged-model-runner.js";
import { OnnxModelLoadError, OnnxRunnerClosedError } from "./onnx-errors.js";
import { decodeModelProto, encodeModelProto } from "./onnx-proto.js";
import {
  randomEnsemble,
  randomRows,
  randomThresholds,
  seededRandom,
} from "./test-support/random-tree-ensemble.js";

const runners: MergedModelRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
});

/** A part as training exports one: a centre and an upper ensemble on one input of `width` features. */
function part(seed: number, width: number, trees: number) {
  const rng = seededRandom(seed);
  const thresholds = randomThresholds(rng, width, 16, true);
  const spec = { featureCount: width, trees, maxDepth: 5, leafChance: 0.1, thresholds, scramble: true };
  const centre = randomEnsemble(rng, spec);
  const upper = randomEnsemble(rng, { ...spec, quantile: 0.9 });
  const bytes = exportTreeEnsemblesToOnnx([
    { name: "centre", ensemble: centre },
    { name: "upper", ensemble: upper },
  ]);
  return { rng, thresholds, centre, upper, bytes, width };
}

async function load(parts: { prefix: string; bytes: Uint8Array }[], options: MergedModelRunnerOptions = {}) {
  const runner = await MergedModelRunner.load(parts, options);
  runners.push(runner);
  return runner;
}

function expectEnsemble(model: TreeEnsemble, rows: Float32Array, actual: ArrayLike<number>): void {
  const width = model.featureNames.length;
  expect(actual).toHaveLength(rows.length / width);
  const wrong: string[] = [];
  for (let r = 0; r < actual.length; r++) {
    const expected = evaluateEnsemble(model, rows.subarray(r * width, (r + 1) * width));
    if (Math.abs(actual[r] - expected) > 1e-5 * Math.max(1, Math.abs(expected)))
      wrong.push(`row ${r}: ${actual[r]} vs ${expected}`);
  }
  expect(wrong).toEqual([]);
}

describe("MergedModelRunner", () => {
  const memory = part(1, 6, 30);
  const walltime = part(2, 6, 25);
  const cores = part(3, 4, 10);
  const parts = [
    { prefix: "memory", bytes: memory.bytes },
    { prefix: "walltime", bytes: walltime.bytes },
    { prefix: "cores", bytes: cores.bytes },
  ];

  it("evaluates every part's own rows in one run, each as its own model would", async () => {
    const runner = await load(parts);
    expect([runner.width("memory"), runner.width("cores")]).toEqual([6, 4]);
    // Different row counts per part: each part's N is its own.
    const m = randomRows(memory.rng, 37, memory.thresholds);
    const w = randomRows(walltime.rng, 3, walltime.thresholds);
    const c = randomRows(cores.rng, 1, cores.thresholds);
    const out = await runner.run([
      { prefix: "memory", rows: m, count: 37 },
      { prefix: "walltime", rows: w, count: 3 },
      { prefix: "cores", rows: c, count: 1 },
    ]);
    expectEnsemble(memory.centre, m, out.get("memory")?.centre as Float32Array);
    expectEnsemble(memory.upper, m, out.get("memory")?.upper as Float32Array);
    expectEnsemble(walltime.upper, w, out.get("walltime")?.upper as Float32Array);
    expectEnsemble(cores.centre, c, out.get("cores")?.centre as Float32Array);
  });

  it("feeds parts without rows itself and answers only for the parts asked", async () => {
    const runner = await load(parts);
    const w = randomRows(walltime.rng, 5, walltime.thresholds);
    const out = await runner.run([{ prefix: "walltime", rows: w, count: 5 }]);
    expect([...out.keys()]).toEqual(["walltime"]);
    expectEnsemble(walltime.centre, w, out.get("walltime")?.centre as Float32Array);
    const none = await runner.run([{ prefix: "cores", rows: new Float32Array(0), count: 0 }]);
    expect(none.get("cores")).toEqual({ centre: new Float32Array(0), upper: new Float32Array(0) });
  });

  it("splits parts with more rows than one run takes, without changing the answer", async () => {
    const runner = await load(parts, { maxRowsPerRun: 16 });
    const m = randomRows(memory.rng, 101, memory.thresholds);
    const c = randomRows(cores.rng, 20, cores.thresholds);
    const out = await runner.run([
      { prefix: "memory", rows: m, count: 101 },
      { prefix: "cores", rows: c, count: 20 },
    ]);
    expectEnsemble(memory.upper, m, out.get("memory")?.upper as Float32Array);
    expectEnsemble(cores.upper, c, out.get("cores")?.upper as Float32Array);
  });

  it("rejects unknown parts and short rows, and runs after close", async () => {
    const runner = await load(parts);
    await expect(runner.run([{ prefix: "gpus", rows: new Float32Array(6), count: 1 }])).rejects.toThrow(
      /gpus/,
    );
    await expect(runner.run([{ prefix: "memory", rows: new Float32Array(5), count: 1 }])).rejects.toThrow(
      /memory/,
    );
    const m = randomRows(memory.rng, 500, memory.thresholds);
    const pending = runner.run([{ prefix: "memory", rows: m, count: 500 }]);
    await runner.close();
    expectEnsemble(memory.centre, m, (await pending).get("memory")?.centre as Float32Array);
    await expect(runner.run([{ prefix: "memory", rows: m, count: 1 }])).rejects.toBeInstanceOf(
      OnnxRunnerClosedError,
    );
  });

  it("refuses to merge what is not a model, repeated prefixes, and models of other versions", async () => {
    expect(() => mergeOnnxModels([])).toThrow(OnnxModelLoadError);
    expect(() => mergeOnnxModels([{ prefix: "a", bytes: Uint8Array.of(1, 2, 3, 4, 5) }])).toThrow(
      OnnxModelLoadError,
    );
    expect(() =>
      mergeOnnxModels([
        { prefix: "a", bytes: memory.bytes },
        { prefix: "a", bytes: cores.bytes },
      ]),
    ).toThrow(/unique/);
    expect(() => mergeOnnxModels([{ prefix: "a/b", bytes: memory.bytes }])).toThrow(/without/);
    const older = encodeModelProto({ ...decodeModelProto(cores.bytes), ir_version: 7 });
    expect(() =>
      mergeOnnxModels([
        { prefix: "a", bytes: memory.bytes },
        { prefix: "b", bytes: older },
      ]),
    ).toThrow(/other IR or operator set versions/);
    await expect(MergedModelRunner.load([{ prefix: "x", bytes: new Uint8Array(0) }])).rejects.toBeInstanceOf(
      OnnxModelLoadError,
    );
  });
});
