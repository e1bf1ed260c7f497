import type { AccuracyReport, AccuracySlice } from "@jobsight/schemas";

const WEEKS = 8;
const FIRST_WEEK = Date.UTC(2026, 9, 5);

function slice(
  resource: AccuracySlice["resource"],
  k: number,
  extra: Partial<AccuracySlice> = {},
): AccuracySlice {
  const under = Math.max(0.004, 0.045 * 0.72 ** k);
  return {
    resource,
    predicted: 400 + 37 * k,
    recommended: 360 + 35 * k,
    coverage: 0.9 + 0.005 * k,
    underPredictionRate: under,
    weightedUnderPredictionRate: Math.min(1, under * 1.6),
    slack: 0.62 - 0.03 * k,
    requestSlack: 1.35 + 0.02 * (k % 3),
    rangeCoverage: 0.86 + 0.005 * k,
    ...extra,
  };
}

/**
 * A schema-valid accuracy report, standing in for the intelligence plane's: weekly, overall and
 * per-partition slices for memory and walltime, and a verdict that is not ready yet.
 */
export function accuracyReport(): AccuracyReport {
  const slices: AccuracySlice[] = [];
  for (const resource of ["memory", "walltime"] as const) {
    for (let k = 0; k < WEEKS; k++) {
      slices.push(slice(resource, k, { weekStart: new Date(FIRST_WEEK + k * 7 * 86_400_000).toISOString() }));
    }
    slices.push(slice(resource, WEEKS - 1, { predicted: 3400, recommended: 3120 }));
    for (const partition of ["batch", "gpu"]) slices.push(slice(resource, WEEKS - 2, { partition }));
  }
  return {
    generatedAt: "2026-12-01T12:00:00Z",
    mode: "shadow",
    shadowUntil: "2026-12-31T00:00:00Z",
    slices,
    readiness: {
      ready: false,
      reasons: [
        "memory: under-prediction 0.6% over the last 4 weeks (goal ≤ 1%)",
        "walltime: 21 days of shadow mode left before the site may go live",
      ],
    },
  };
}

/**
 * The same report with per-job points and confidence buckets, the optional parts the accuracy page
 * draws its scatter and calibration plots from when a server sends them.
 */
export function accuracyReportWithPoints(): AccuracyReport & { points: unknown[]; calibration: unknown[] } {
  const points = [];
  for (let i = 0; i < 120; i++) {
    const actual = 2 ** (30 + (i % 37) / 6);
    const ratio = 1.1 + ((i * 7919) % 100) / 140;
    points.push({ resource: "memory" as const, recommended: actual * ratio, actual, censored: i % 41 === 0 });
    points.push({
      resource: "walltime" as const,
      recommended: 600 + i * 90 * ratio,
      actual: 600 + i * 90,
      censored: false,
    });
  }
  const calibration = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99].flatMap((confidence, i) => [
    {
      resource: "memory" as const,
      confidence,
      jobs: 200 + i * 40,
      observed: Math.min(1, confidence + (i % 2 ? 0.01 : -0.02)),
    },
    {
      resource: "walltime" as const,
      confidence,
      jobs: 150 + i * 30,
      observed: Math.min(1, confidence - 0.03),
    },
  ]);
  return { ...accuracyReport(), points, calibration };
}
