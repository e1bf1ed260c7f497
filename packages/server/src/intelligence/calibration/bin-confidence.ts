import { applyConformal, type CalibrationExample, type ConformalTable } from "./conformal-table.js";

/**
 * Sets the confidence of every bin of `table` (uncapped and capped apart) to the share of
 * `examples` in that bin whose use fell inside the range [low, value], shrunk toward the whole table's share with
 * `priorJobs` pseudo-jobs: a cell's own rate only outweighs the table's on as many jobs as the
 * table asks of a cell before trusting its quantiles (`minPerBin`). With 20 pseudo-jobs, the few
 * uncapped jobs of a mostly capped cell, onto which its quantile puts all of the cell's misses,
 * promised 86% and 90% (CEA-Curie walltime) where 98% and 100% of them were then met.
 *
 * @example
 * ```ts
 * fitBinConfidence(table, calibrationExamples, 400);
 * ```
 */
export function fitBinConfidence(
  table: ConformalTable,
  examples: CalibrationExample[],
  priorJobs: number,
): void {
  const counts = table.bins.map(() => ({ n: 0, ok: 0, nc: 0, okc: 0 }));
  for (const e of examples) {
    const r = applyConformal(table, e.m, e.s, e.logRequest, true, e.need, e.held);
    if (r.tooUncertain || r.bin >= counts.length) continue;
    const c = counts[r.bin];
    const ok = e.y <= r.logValue && e.y >= r.logLow ? 1 : 0;
    if (r.capped) {
      c.nc++;
      c.okc += ok;
    } else {
      c.n++;
      c.ok += ok;
    }
  }
  let n = 0;
  let ok = 0;
  for (const c of counts) {
    n += c.n + c.nc;
    ok += c.ok + c.okc;
  }
  const overall = n > 0 ? ok / n : table.nominalLevel;
  table.bins.forEach((b, k) => {
    const c = counts[k];
    b.confidence = (c.ok + priorJobs * overall) / (c.n + priorJobs);
    b.confidenceCapped = (c.okc + priorJobs * overall) / (c.nc + priorJobs);
  });
}
