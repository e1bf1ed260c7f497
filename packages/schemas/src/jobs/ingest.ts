import { type Static, Type } from "@sinclair/typebox";
import { Page } from "../common.js";
import { JobRecord } from "./job-record.js";
import { NodeEvent } from "./node-event.js";
import { UsageSample } from "./usage-sample.js";

/** Job lifecycle records sent together. */
export const JobRecordBatch = Type.Object(
  { records: Type.Array(JobRecord, { minItems: 1, maxItems: 10_000, description: "The records." }) },
  { $id: "JobRecordBatch", additionalProperties: false, description: "Several job records." },
);
export type JobRecordBatch = Static<typeof JobRecordBatch>;

/** Node events sent together. */
export const NodeEventBatch = Type.Object(
  { events: Type.Array(NodeEvent, { minItems: 1, maxItems: 10_000, description: "The events." }) },
  { $id: "NodeEventBatch", additionalProperties: false, description: "Several node events." },
);
export type NodeEventBatch = Static<typeof NodeEventBatch>;

/** What the data plane did with a batch; sent only after the batch is committed. */
export const IngestResult = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: "Items stored now." }),
    duplicates: Type.Integer({
      minimum: 0,
      description: "Items already stored (resends), not stored again.",
    }),
  },
  { $id: "IngestResult", additionalProperties: false, description: "Outcome of an ingest batch." },
);
export type IngestResult = Static<typeof IngestResult>;

/** A page of job records. */
export const JobPage = Page(JobRecord, "A page of jobs.", "JobPage");
export type JobPage = Static<typeof JobPage>;

/** A job's time series on one or more nodes, possibly downsampled. */
export const UsageSeries = Type.Object(
  {
    cluster: Type.String(),
    jobId: Type.String(),
    stepSeconds: Type.Optional(
      Type.Number({ minimum: 0, description: "Bucket width when downsampled; absent for raw samples." }),
    ),
    samples: Type.Array(UsageSample, {
      description: "Samples in time order (per bucket: the last reading, with maxima).",
    }),
  },
  { $id: "UsageSeries", additionalProperties: false, description: "A job's time series." },
);
export type UsageSeries = Static<typeof UsageSeries>;

/** A job's node events. */
export const NodeEventList = Type.Object(
  { events: Type.Array(NodeEvent) },
  { $id: "NodeEventList", additionalProperties: false, description: "Events attributed to a job." },
);
export type NodeEventList = Static<typeof NodeEventList>;
