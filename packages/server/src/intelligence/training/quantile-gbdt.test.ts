import { describe, expect, it } from "vitest";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import { mulberry32, trainQuantileGbdt } from "./quantile-gbdt.js";

function synthetic(n: number, seed: number) {
  const rng = mulberry32(seed);
  const x = new Float32Array(n * 2);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = rng() * 4;
    const b = rng();
    x[i * 2] = a;
    x[i * 2 + 1] = b;
    // Noise whose spread depends on b: the 0.9 quantile is a + 2·b·1.2816 for a normal.
    const u1 = Math.max(rng(), 1e-12);
    const u2 = rng();
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    y[i] = a + 2 * b * z;
  }
  return { x, y, censored: new Uint8Array(n), featureNames: ["a", "b"] };
}

describe("trainQuantileGbdt", () => {
  it("learns the 0.9 quantile of heteroscedastic data (held-out coverage ≈ 0.9)", () => {
    const train = synthetic(8000, 1);
    const model = trainQuantileGbdt(train, { quantile: 0.9, trees: 80, maxDepth: 4 });
    const test = synthetic(4000, 2);
    let below = 0;
    let err = 0;
    for (let i = 0; i < 4000; i++) {
      const row = test.x.subarray(i * 2, i * 2 + 2);
      const p = evaluateEnsemble(model, row);
      if (test.y[i] <= p) below++;
      err += Math.abs(p - (row[0] + 2 * row[1] * 1.2816));
    }
    expect(below / 4000).toBeGreaterThan(0.87);
    expect(below / 4000).toBeLessThan(0.93);
    expect(err / 4000).toBeLessThan(0.25);
  });

  it("stores float32-representable thresholds and leaf values, missing values going left", () => {
    const train = synthetic(2000, 3);
    const model = trainQuantileGbdt(train, { quantile: 0.5, trees: 5, maxDepth: 3 });
    for (const t of model.trees) {
      for (let k = 0; k < t.feature.length; k++) {
        expect(Math.fround(t.threshold[k])).toBe(t.threshold[k]);
        expect(Math.fround(t.value[k])).toBe(t.value[k]);
      }
    }
    const p = evaluateEnsemble(model, [Number.NaN, Number.NaN]);
    expect(Number.isFinite(p)).toBe(true);
  });

  it("treats censored targets as lower bounds that only push the prediction up", () => {
    const n = 4000;
    const x = new Float32Array(n);
    const y = new Float64Array(n);
    const censored = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = i % 2;
      // Half the rows are killed at 1 while their need is 10: a low lower bound says nothing.
      y[i] = i % 4 === 0 ? 1 : 10;
      censored[i] = i % 4 === 0 ? 1 : 0;
    }
    const model = trainQuantileGbdt({ x, y, censored, featureNames: ["x"] }, { quantile: 0.5, trees: 30 });
    expect(evaluateEnsemble(model, [0])).toBeCloseTo(10, 1);
    const dropped = trainQuantileGbdt(
      { x, y, censored: new Uint8Array(n), featureNames: ["x"] },
      { quantile: 0.3, trees: 30 },
    );
    expect(evaluateEnsemble(dropped, [0])).toBeLessThan(5);
  });
});
