import type { JobSpec, Prediction, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { predictionRows, type RecordedPrediction } from "./prediction-store.js";

const spec: JobSpec = {
  cluster: "hpc1",
  scheduler: "slurm",
  user: "zoë",
  partition: "gpu",
  jobName: 'tab\there "quoted" back\\slash',
  requested: { memoryBytes: 2 ** 34, cores: 8 },
};
const resources: ResourcePrediction[] = [
  {
    resource: "walltime",
    status: "insufficient_evidence",
    reasonCode: "too_uncertain",
    reason: "similar jobs vary\ttoo much (\\ and \n)",
  },
];

function recorded(id: string, idempotencyKey?: string): RecordedPrediction {
  const answer: Prediction = {
    id,
    createdAt: "2026-01-02T03:04:05.678Z",
    mode: "shadow",
    modelVersion: "v1",
    cluster: spec.cluster,
    user: spec.user,
    resources: [],
    shadowUntil: "2026-02-01T00:00:00.000Z",
    notice: "Shadow mode:\trecorded",
  };
  const p: RecordedPrediction = {
    answer,
    resources,
    resourcesJson: JSON.stringify(resources),
    recommendations: [{ resource: "walltime", status: "insufficient_evidence" }],
    spec,
    specJson: JSON.stringify(spec),
    linkKey: "hpc1|zoë|gpu",
    requestedBy: "ops",
  };
  if (idempotencyKey !== undefined) p.idempotencyKey = idempotencyKey;
  return p;
}

/** The fields of binary COPY rows: text as strings, 8-byte fields as timestamps, NULL as null. */
function decodeRows(bytes: Buffer): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let at = 0;
  while (at < bytes.length) {
    const count = bytes.readInt16BE(at);
    at += 2;
    const row: (string | null)[] = [];
    for (let f = 0; f < count; f++) {
      const length = bytes.readInt32BE(at);
      at += 4;
      if (length < 0) {
        row.push(null);
        continue;
      }
      const field = bytes.subarray(at, at + length);
      at += length;
      // Timestamps are the only 8-byte fields of these rows that are not text.
      const isTimestamp = length === 8 && (f === 1 || f === 8 || f === 12);
      row.push(
        isTimestamp
          ? new Date(Number(field.readBigInt64BE(0) / 1000n) + 946_684_800_000).toISOString()
          : field.toString("utf8"),
      );
    }
    rows.push(row);
  }
  return rows;
}

describe("prediction rows for COPY (binary format)", () => {
  it("hold every column in order, documents as their JSON text, absent values as NULL", () => {
    const a = recorded("00000000-0000-4000-8000-000000000001", "portal\\7");
    expect(decodeRows(predictionRows([a]))).toEqual([
      [
        a.answer.id,
        "2026-01-02T03:04:05.678Z",
        "shadow",
        "v1",
        "hpc1",
        "zoë",
        "gpu",
        "hpc1|zoë|gpu",
        null,
        JSON.stringify(spec),
        JSON.stringify(resources),
        JSON.stringify(a.recommendations),
        "2026-02-01T00:00:00.000Z",
        "Shadow mode:\trecorded",
        "ops",
        "portal\\7",
      ],
    ]);
  });

  it("are the same bytes when records share their row's middle, each with its own id and key", () => {
    const a = recorded("00000000-0000-4000-8000-000000000001");
    const b = recorded("00000000-0000-4000-8000-000000000002", "k");
    const plain = predictionRows([a, b]);
    const job = {};
    expect(
      predictionRows([
        { ...a, sameRowAs: job },
        { ...b, sameRowAs: job },
      ]).equals(plain),
    ).toBe(true);
    // Encoded once: a later record of the same job reuses the first one's middle.
    const other = { ...b, sameRowAs: job, spec: { ...b.spec, partition: "another-partition" } };
    expect(predictionRows([other]).equals(predictionRows([{ ...b, sameRowAs: job }]))).toBe(true);
    const [first, second] = decodeRows(plain);
    expect([first[0], first[15], second[0], second[15]]).toEqual([a.answer.id, null, b.answer.id, "k"]);
  });

  it("write a submit time that is not a time as NULL rather than fail the whole write", () => {
    const a = recorded("00000000-0000-4000-8000-000000000003");
    const [row] = decodeRows(predictionRows([{ ...a, spec: { ...spec, submitTime: "yesterday" } }]));
    expect(row[8]).toBeNull();
  });
});
