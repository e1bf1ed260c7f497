import { afterEach, describe, expect, it } from "vitest";
import { evaluateEnsemble, type TreeEnsemble } from "../model/tree-ensemble.js";
import { exportTreeEnsembleToOnnx } from "./export-tree-ensemble.js";
import {
  OnnxErrorCode,
  OnnxFeatureCountError,
  OnnxModelLoadError,
  OnnxRunnerClosedError,
} from "./onnx-errors.js";
import { OnnxModelRunner, type OnnxModelRunnerOptions } from "./onnx-model-runner.js";
import {
  randomEnsemble,
  randomRows,
  randomThresholds,
  seededRandom,
} from "./test-support/random-tree-ensemble.js";

const runners: OnnxModelRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
});

async function load(bytes: Uint8Array, options: OnnxModelRunnerOptions = {}): Promise<OnnxModelRunner> {
  const runner = await OnnxModelRunner.load(bytes, { intraOpNumThreads: 1, ...options });
  runners.push(runner);
  return runner;
}

function fixture(seed: number, featureCount: number, trees: number, maxDepth: number) {
  const rng = seededRandom(seed);
  const thresholds = randomThresholds(rng, featureCount, 16);
  const model = randomEnsemble(rng, {
    featureCount,
    trees,
    maxDepth,
    leafChance: 0,
    thresholds,
    scramble: false,
  });
  return { rng, thresholds, model, bytes: exportTreeEnsembleToOnnx(model) };
}

function expectMatches(model: TreeEnsemble, values: Float32Array, actual: number[]): void {
  const featureCount = model.featureNames.length;
  expect(actual).toHaveLength(values.length / featureCount);
  const mismatches: string[] = [];
  actual.forEach((v, r) => {
    const expected = evaluateEnsemble(model, values.subarray(r * featureCount, (r + 1) * featureCount));
    if (Math.abs(v - expected) > 1e-5 * Math.abs(expected)) mismatches.push(`row ${r}: ${v} vs ${expected}`);
  });
  expect(mismatches).toEqual([]);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => error,
  );
}

describe("OnnxModelRunner", () => {
  it("rejects corrupt, truncated and empty model bytes with a typed error", async () => {
    const { bytes } = fixture(1, 4, 5, 3);
    const rng = seededRandom(9);
    const garbage = Uint8Array.from({ length: 512 }, () => Math.floor(rng() * 256));
    const flipped = bytes.slice();
    for (let i = 40; i < flipped.length; i += 97) flipped[i] ^= 0xff;
    for (const corrupt of [
      garbage,
      bytes.subarray(0, Math.floor(bytes.length / 2)),
      flipped,
      new Uint8Array(0),
    ]) {
      const error = await rejection(OnnxModelRunner.load(corrupt));
      expect(error).toBeInstanceOf(OnnxModelLoadError);
      expect(error).toMatchObject({ code: OnnxErrorCode.invalidModel });
    }
  });

  it("rejects batches with the wrong number of features with a typed error", async () => {
    const { bytes } = fixture(2, 4, 5, 3);
    const runner = await load(bytes);
    expect(runner.featureCount).toBe(4);
    const cases = [
      runner.run(new Float32Array(15), 5),
      runner.run(new Float32Array(10), 4),
      runner.runRows([
        [1, 2, 3, 4],
        [1, 2, 3],
      ]),
    ];
    for (const error of await Promise.all(cases.map(rejection))) {
      expect(error).toBeInstanceOf(OnnxFeatureCountError);
      expect(error).toMatchObject({ code: OnnxErrorCode.featureCountMismatch, expectedFeatures: 4 });
    }
  });

  it("serves concurrent callers from one session, each with its own results", async () => {
    const { rng, thresholds, model, bytes } = fixture(3, 7, 40, 5);
    const runner = await load(bytes, { maxRowsPerRun: 64 });
    const batches = Array.from({ length: 24 }, (_, i) => randomRows(rng, 1 + ((i * 37) % 300), thresholds));
    const results = await Promise.all(batches.map((batch) => runner.run(batch, 7)));
    results.forEach((result, i) => {
      expectMatches(model, batches[i], result.value);
    });
  });

  it("splits large batches into runs without changing the answer", async () => {
    const { rng, thresholds, bytes } = fixture(4, 3, 20, 4);
    const values = randomRows(rng, 1001, thresholds);
    const whole = await (await load(bytes)).run(values, 3);
    const split = await (await load(bytes, { maxRowsPerRun: 10 })).run(values, 3);
    expect(split.value).toEqual(whole.value);
    expect(await (await load(bytes)).run(new Float32Array(0), 3)).toEqual({ value: [] });
  });

  it("gives the same numbers as typed arrays, with runs split or whole", async () => {
    const { rng, thresholds, bytes } = fixture(8, 3, 20, 4);
    const values = randomRows(rng, 57, thresholds);
    const plain = await (await load(bytes)).run(values, 3);
    const typed = await (await load(bytes)).runTyped(values, 3);
    const split = await (await load(bytes, { maxRowsPerRun: 10 })).runTyped(values, 3);
    expect(Array.from(typed.value)).toEqual(plain.value);
    expect(Array.from(split.value)).toEqual(plain.value);
  });

  it("accepts rows as arrays of numbers, rounding them to float32", async () => {
    const { model, bytes } = fixture(5, 2, 10, 3);
    const runner = await load(bytes);
    const rows = [
      [0.1, -3.3],
      [Number.NaN, 7],
    ];
    const { value } = await runner.runRows(rows);
    expectMatches(model, new Float32Array(rows.flat()), value);
  });

  it("waits for runs in flight on close, then rejects new runs", async () => {
    const { rng, thresholds, model, bytes } = fixture(6, 5, 50, 6);
    const runner = await OnnxModelRunner.load(bytes, { maxRowsPerRun: 100 });
    const values = randomRows(rng, 2000, thresholds);
    const pending = runner.run(values, 5);
    await runner.close();
    expectMatches(model, values, (await pending).value);
    expect(await rejection(runner.run(values, 5))).toBeInstanceOf(OnnxRunnerClosedError);
  });

  it("runs a trained-size ensemble (300 trees, depth 6) on 10,000 rows", async () => {
    const { rng, thresholds, model, bytes } = fixture(7, 24, 300, 6);
    const runner = await load(bytes, { intraOpNumThreads: 0 });
    const values = randomRows(rng, 10_000, thresholds);
    await runner.run(values.subarray(0, 24 * 100), 24); // warm-up
    const started = performance.now();
    const { value } = await runner.run(values, 24);
    const onnxMs = performance.now() - started;
    const tsStarted = performance.now();
    for (let r = 0; r < 10_000; r++) evaluateEnsemble(model, values.subarray(r * 24, (r + 1) * 24));
    const tsMs = performance.now() - tsStarted;
    console.log(
      `300 trees x depth 6, 10,000 rows x 24 features (${(bytes.length / 1024).toFixed(0)} KiB model): ` +
        `ONNX Runtime ${onnxMs.toFixed(1)} ms, TypeScript evaluateEnsemble ${tsMs.toFixed(1)} ms`,
    );
    expectMatches(model, values, value);
  });
});
