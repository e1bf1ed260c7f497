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

/** One offending field of an item an ingest batch refused while storing the others. */
export const IngestRejection = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: "Position of the refused item in the batch's array." }),
    path: Type.String({
      description: "JSON Pointer of the offending field in the request body, e.g. /records/3/spec/user.",
    }),
    message: Type.String({ description: "Why it was refused." }),
    code: Type.String({
      pattern: "^[A-Z][A-Z0-9_]*$",
      description: "Stable code of the refusal, from the error catalogue: VALIDATION_FAILED.",
    }),
  },
  { additionalProperties: false, description: "An offending field of a refused item." },
);
export type IngestRejection = Static<typeof IngestRejection>;

/**
 * What the data plane did with a batch; sent only after the batch is committed. Items are judged
 * one by one, as OTLP partial success does: the valid ones are stored and the answer is 200 with
 * `rejected` naming every offending field of the others, which a client must not resend (they
 * would be refused again). A batch whose envelope is wrong, or none of whose items is valid, is
 * refused whole with 400 `VALIDATION_FAILED`.
 */
export const IngestResult = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: "Items stored now." }),
    duplicates: Type.Integer({
      minimum: 0,
      description: "Items already stored (resends), not stored again.",
    }),
    rejected: Type.Optional(
      Type.Array(IngestRejection, {
        description:
          "Present only when items were refused (partial success): every offending field of each refused item, in item order; several entries may name one item. The other items were stored.",
      }),
    ),
  },
  {
    $id: "IngestResult",
    additionalProperties: false,
    description:
      "Outcome of an ingest batch: the valid items stored, the invalid ones (if any) listed in `rejected` and not stored.",
  },
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
