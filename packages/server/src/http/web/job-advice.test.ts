import { type AdviceHistory, validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";

type Row = {
  resource: string;
  versions: string;
  asked: string;
  advice: string;
  confidence: string;
  why: string;
  causes: string[];
  shadow: boolean;
};
// The page's own browser module, loaded as it is served (plain JS, so imported by a computed path).
const modulePath = "./report-assets/job-advice.js";
const { adviceRows } = (await import(modulePath)) as { adviceRows: (history: AdviceHistory) => Row[] };

const GIB = 2 ** 30;
const history: AdviceHistory = {
  cluster: "hpc1",
  jobId: "4242",
  from: "2026-11-01T10:00:00.000Z",
  to: "2026-12-01T10:02:00.000Z",
  asked: 4,
  models: [
    {
      version: "m-1",
      firstAsked: "2026-11-02T09:00:00.000Z",
      lastAsked: "2026-11-03T09:00:00.000Z",
      asked: 3,
    },
    {
      version: "m-2",
      firstAsked: "2026-11-09T09:00:00.000Z",
      lastAsked: "2026-11-09T09:00:00.000Z",
      asked: 1,
    },
  ],
  resources: [
    {
      resource: "memory",
      unit: "bytes",
      history: [
        {
          modelVersions: ["m-1"],
          firstAsked: "2026-11-02T09:00:00.000Z",
          lastAsked: "2026-11-03T09:00:00.000Z",
          asked: 3,
          status: "ok",
          value: 48 * GIB,
          low: 20 * GIB,
          high: 48 * GIB,
          confidence: 0.93,
          causes: ["first"],
          why: "First advice: 48 GiB, from model m-1.",
        },
        {
          modelVersions: ["m-2"],
          firstAsked: "2026-11-09T09:00:00.000Z",
          lastAsked: "2026-11-09T09:00:00.000Z",
          asked: 1,
          status: "insufficient_evidence",
          reasonCode: "too_few_similar_jobs",
          shadow: true,
          causes: ["model_version", "status"],
          why: "No recommendation any more: the model version changed from m-1 to m-2.",
        },
      ],
    },
  ],
};

describe("adviceRows (the job page's advice table)", () => {
  it("gives one row per change, naming the resource once, with the range, confidence and why", () => {
    expect(validators.AdviceHistory.validate(history).ok).toBe(true);
    expect(adviceRows(history)).toEqual([
      {
        resource: "Memory",
        versions: "m-1",
        asked: "2026-11-02 09:00:00 UTC – 2026-11-03 09:00:00 UTC (3×)",
        advice: "48 GiB (20 GiB – 48 GiB)",
        confidence: "93 %",
        why: "First advice: 48 GiB, from model m-1.",
        causes: ["first"],
        shadow: false,
      },
      {
        resource: "",
        versions: "m-2",
        asked: "2026-11-09 09:00:00 UTC",
        advice: "no recommendation",
        confidence: "–",
        why: "No recommendation any more: the model version changed from m-1 to m-2.",
        causes: ["model_version", "status"],
        shadow: true,
      },
    ]);
  });
});
