import { describe, expect, it } from "vitest";
import { FeatureBins } from "./feature-bins.js";
import { mulberry32 } from "./quantile-gbdt.js";
import { trainEnsembles } from "./train-ensembles.js";

function data(n: number) {
  const rng = mulberry32(7);
  const F = 3;
  const x = new Float32Array(n * F);
  const y = new Float64Array(n);
  const censored = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < F; f++) x[i * F + f] = rng() < 0.05 ? Number.NaN : rng() * 10;
    y[i] = (x[i * F] || 0) * 0.5 + rng() * (1 + (x[i * F + 1] || 0));
    censored[i] = rng() < 0.03 ? 1 : 0;
  }
  return { y, censored, featureNames: ["a", "b", "c"], bins: new FeatureBins(x, n, F) };
}

describe("trainEnsembles", () => {
  const both = [
    { quantile: 0.5, trees: 12, maxDepth: 4, seed: 1 },
    { quantile: 0.9, trees: 12, maxDepth: 4, seed: 2 },
  ] as const;

  it("trains the second ensemble on a worker thread, to exactly the ensembles of one thread", () => {
    const d = data(3000);
    const places: string[] = [];
    const parallel = trainEnsembles(d, [...both], { parallelFromRows: 0, onPlace: (p) => places.push(p) });
    const inline = trainEnsembles(d, [...both], {
      parallelFromRows: Number.POSITIVE_INFINITY,
      onPlace: (p) => places.push(p),
    });
    expect(places).toEqual(["worker", "inline"]);
    expect(JSON.stringify(parallel)).toBe(JSON.stringify(inline));
    expect(parallel[1].quantile).toBe(0.9);
    expect(parallel[1].trees).toHaveLength(12);
  });

  it("keeps small data on the calling thread", () => {
    const places: string[] = [];
    trainEnsembles(data(500), [...both], { onPlace: (p) => places.push(p) });
    expect(places).toEqual(["inline"]);
  });
});
