import type { ResourcePrediction } from "@jobsight/schemas";
import type { SqlPool } from "../../../src/data-plane/storage/database.js";
import { ModelStore } from "../../../src/data-plane/stores/model-store.js";
import { insertPredictionRows, predictionRows } from "../../../src/data-plane/stores/prediction-store.js";
import { linkKeyOf } from "../../../src/intelligence/recording/link-predictions.js";
import { showcaseRecord } from "./report-fixture.js";

const GIB = 2 ** 30;

const memory = (value: number, jobs: number): ResourcePrediction => ({
  resource: "memory",
  status: "ok",
  unit: "bytes",
  value,
  low: Math.round(value * 0.6),
  high: value,
  nominalLevel: 0.9,
  confidence: 0.91,
  evidence: { group: "user=alice,executable=train.py", jobs },
});

/**
 * The showcase job's recorded advice: model m-1 advised 40 GiB twice, then m-2 (trained on more
 * jobs) 56 GiB just before the submission; both versions are in the registry.
 */
export async function seedShowcaseAdvice(pool: SqlPool): Promise<void> {
  const models = new ModelStore<object, object>(pool);
  for (const [version, trainingJobs, dataEnd] of [
    ["m-1", 3200, "2026-11-15T23:00:00Z"],
    ["m-2", 3900, "2026-11-29T23:00:00Z"],
  ] as const) {
    await models.record(
      {
        version,
        trigger: "test",
        manifestSha256: (version === "m-1" ? "1" : "2").repeat(64),
        resources: ["memory"],
        trainingJobs,
        dataStart: "2026-09-01T00:00:00Z",
        dataEnd,
        backtest: {},
        decision: {},
      },
      true,
    );
  }
  const spec = showcaseRecord().spec;
  const asked = [
    ["2026-11-20T08:00:00Z", "m-1", memory(40 * GIB, 18)],
    ["2026-11-24T08:00:00Z", "m-1", memory(40 * GIB, 19)],
    ["2026-12-01T09:40:00Z", "m-2", memory(56 * GIB, 21)],
  ] as const;
  await insertPredictionRows(
    pool,
    predictionRows(
      asked.map(([createdAt, modelVersion, resource], i) => ({
        answer: {
          id: `showcase-advice-${i}`,
          createdAt,
          mode: "live",
          modelVersion,
          cluster: spec.cluster,
          user: spec.user,
          resources: [resource],
        },
        resources: [resource],
        recommendations: [],
        spec,
        linkKey: linkKeyOf(spec),
        requestedBy: spec.user,
      })),
    ),
  );
}
