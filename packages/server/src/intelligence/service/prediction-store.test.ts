import type { JobSpec, Prediction, ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { copyTextBuffer } from "../../data-plane/copy-text.js";
import { predictionCopyRows, predictionCopyTail, type RecordedPrediction } from "./prediction-store.js";

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

describe("predictionCopyTail", () => {
  it("is the COPY line of a prediction between its id and its key, escapes and wide characters included", () => {
    const a = recorded("00000000-0000-4000-8000-000000000001");
    const b = recorded("00000000-0000-4000-8000-000000000002", "portal\\7");
    // One tail serves both: their lines differ only in id and key.
    const tail = predictionCopyTail(a).toString("utf8");
    expect(predictionCopyTail(b).toString("utf8")).toBe(tail);
    expect(copyTextBuffer(predictionCopyRows([a, b])).toString("utf8")).toBe(
      `${a.answer.id}\t${tail}\t\\N\n${b.answer.id}\t${tail}\tportal\\\\7\n`,
    );
    // The documents' own escapes are doubled for COPY, and nothing breaks a field or a line.
    expect(tail.split("\t")).toHaveLength(14);
    expect(tail).not.toContain("\n");
  });
});
