/** Largest finite float32, used as the "everything goes right" threshold of a missing-only split. */
export const FLOAT32_LOWEST = -3.4028234663852886e38;

/** What a {@link FeatureBins} is made of. */
export type FeatureBinsParts = { edges: Float32Array[]; bins: Uint8Array; rows: number; features: number };

/**
 * Quantised columns for histogram-based split finding. Bin 0 holds missing values (NaN), so that a
 * split "bins ≤ b" sends missing values left, exactly as {@link evaluateTree} does. Edges are float32
 * values, so the threshold `x ≤ edge` means the same in TypeScript and in an ONNX export.
 */
export class FeatureBins {
  /** Per feature, sorted float32 edges: bin k (k ≥ 1) holds `edges[k-2] < x ≤ edges[k-1]`. */
  readonly edges: Float32Array[];
  /** Row-major binned matrix: `bins[i * features + f]` (a row's bins are contiguous for histograms). */
  readonly bins: Uint8Array;

  /**
   * Bins `rows` rows of the row-major matrix `x`: rows 0..rows-1, or the rows `rowIndex` lists (in
   * that order), so a subset is binned without copying its features.
   */
  constructor(
    x: Float32Array,
    readonly rows: number,
    readonly features: number,
    maxBins = 64,
    rowIndex?: ArrayLike<number>,
  ) {
    this.edges = [];
    // Shared, so the thread that trains the second ensemble reads these bins instead of a copy.
    this.bins = new Uint8Array(new SharedArrayBuffer(rows * features));
    const maxEdges = maxBins - 2;
    const sampleEvery = Math.max(1, Math.floor(rows / 20_000));
    const sample = new Float64Array(Math.ceil(rows / sampleEvery) + 1);
    for (let f = 0; f < features; f++) {
      let m = 0;
      for (let i = 0; i < rows; i += sampleEvery) {
        const v = x[(rowIndex ? rowIndex[i] : i) * features + f];
        if (!Number.isNaN(v)) sample[m++] = v;
      }
      const edges = computeEdges(sample.subarray(0, m), maxEdges);
      this.edges.push(edges);
      for (let i = 0; i < rows; i++) {
        this.bins[i * features + f] = binOf(edges, x[(rowIndex ? rowIndex[i] : i) * features + f]);
      }
    }
  }

  /**
   * A `FeatureBins` over parts another thread made (see {@link FeatureBins.parts}), without binning
   * again.
   */
  static fromParts(parts: FeatureBinsParts): FeatureBins {
    const out = Object.create(FeatureBins.prototype) as FeatureBins;
    return Object.assign(out, parts);
  }

  /** The plain parts, to hand the binning to another thread (structured clone). */
  parts(): FeatureBinsParts {
    return { edges: this.edges, bins: this.bins, rows: this.rows, features: this.features };
  }

  /** Threshold of the split "bins ≤ b" of feature `f`. */
  threshold(f: number, b: number): number {
    return b === 0 ? FLOAT32_LOWEST : this.edges[f][b - 1];
  }
}

function computeEdges(sample: Float64Array, maxEdges: number): Float32Array {
  if (sample.length === 0) return new Float32Array(0);
  sample.sort();
  const unique: number[] = [];
  for (const v of sample) if (unique.length === 0 || unique[unique.length - 1] !== v) unique.push(v);
  if (unique.length - 1 <= maxEdges) return Float32Array.from(unique.slice(0, -1));
  const edges: number[] = [];
  for (let k = 1; k <= maxEdges; k++) {
    const v = sample[Math.min(sample.length - 1, Math.floor((k * sample.length) / (maxEdges + 1)))];
    if (v < unique[unique.length - 1] && (edges.length === 0 || edges[edges.length - 1] < v)) edges.push(v);
  }
  return Float32Array.from(edges);
}

function binOf(edges: Float32Array, v: number): number {
  if (Number.isNaN(v)) return 0;
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo + 1;
}
