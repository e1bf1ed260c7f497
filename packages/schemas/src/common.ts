import { type Static, type TSchema, Type } from "@sinclair/typebox";

/** An ISO 8601 / RFC 3339 timestamp with a time zone, e.g. `2026-12-02T16:30:00Z`. */
export const Timestamp = Type.String({
  format: "date-time",
  description: "RFC 3339 timestamp with time zone, e.g. 2026-12-02T16:30:00Z.",
});

/** A cluster identifier as registered with Jobsight: lower-case letters, digits, `-` and `_`. */
export const ClusterId = Type.String({
  pattern: "^[a-z0-9][a-z0-9_-]{0,62}$",
  description: "Registered cluster id: lower-case letters, digits, '-' and '_', at most 63 characters.",
});

/** The scheduler that runs a job. */
export const Scheduler = Type.Union([Type.Literal("slurm"), Type.Literal("kubernetes")], {
  description: "The scheduler that runs the job.",
});

/** The resources Jobsight predicts. */
export const ResourceName = Type.Union(
  [
    Type.Literal("memory"),
    Type.Literal("cores"),
    Type.Literal("gpus"),
    Type.Literal("gpuMemory"),
    Type.Literal("walltime"),
  ],
  {
    description:
      "A resource Jobsight predicts: memory (bytes), cores, gpus (devices), gpuMemory (bytes), walltime (seconds).",
  },
);
/** One of the resources Jobsight predicts. */
export type ResourceName = Static<typeof ResourceName>;

/** The unit each resource is expressed in on the wire. */
export const ResourceUnit = Type.Union(
  [Type.Literal("bytes"), Type.Literal("cores"), Type.Literal("devices"), Type.Literal("seconds")],
  {
    description:
      "Unit of a resource value: bytes (memory, gpuMemory), cores, devices (gpus), seconds (walltime).",
  },
);

/** A non-empty string of bounded length, for names and identifiers. */
export const Name = (description: string, maxLength = 256) =>
  Type.String({ minLength: 1, maxLength, description });

/** A non-negative integer count of bytes. */
export const Bytes = (description: string) =>
  Type.Integer({ minimum: 0, description: `${description} (bytes).` });

/** A lower-case hex sha256 digest. */
export const Sha256 = Type.String({
  pattern: "^[a-f0-9]{64}$",
  description: "Lower-case hex sha256 digest.",
});

/** An opaque idempotency key chosen by the sender; resends with the same key are stored once. */
export const IdempotencyKey = Type.String({
  minLength: 8,
  maxLength: 128,
  pattern: "^[A-Za-z0-9._:-]+$",
  description:
    "Sender-chosen idempotency key (8-128 characters of [A-Za-z0-9._:-]); a resend with the same key is stored once.",
});

/** One page of a cursor-paginated list. */
export const Page = <T extends TSchema>(item: T, description: string, $id?: string) =>
  Type.Object(
    {
      items: Type.Array(item, { description: "The items of this page, in the list's order." }),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description: "Opaque cursor for the next page, or null on the last page.",
      }),
    },
    { description, additionalProperties: false, ...($id ? { $id } : {}) },
  );
