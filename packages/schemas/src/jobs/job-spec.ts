import { type Static, Type } from "@sinclair/typebox";
import { Bytes, ClusterId, Name, Scheduler, Sha256, Timestamp } from "../common.js";

/** What a job asks for, in scheduler-neutral units. Every field is optional: a job may leave any unset. */
export const ResourceRequest = Type.Object(
  {
    memoryBytes: Type.Optional(Bytes("Requested memory for the whole job")),
    cores: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description: "Requested CPU cores for the whole job (fractional for Kubernetes, e.g. 0.5 for 500m).",
      }),
    ),
    gpus: Type.Optional(
      Type.Integer({ minimum: 0, description: "Requested GPU devices for the whole job." }),
    ),
    gpuModel: Type.Optional(Name("Requested GPU model or type constraint, e.g. a100 or V100M32.", 128)),
    gpuMemoryBytes: Type.Optional(Bytes("Requested GPU memory per job")),
    walltimeSeconds: Type.Optional(
      Type.Integer({ minimum: 1, description: "Requested wall-clock limit in seconds." }),
    ),
    nodes: Type.Optional(Type.Integer({ minimum: 1, description: "Requested number of nodes." })),
  },
  { additionalProperties: false, description: "Resources a job asks for, in scheduler-neutral units." },
);
export type ResourceRequest = Static<typeof ResourceRequest>;

/** Array-job membership (SLURM `--array`, Kubernetes indexed Jobs). */
export const ArrayInfo = Type.Object(
  {
    arrayJobId: Type.Optional(
      Name(
        "Id of the array as a whole (SLURM ArrayJobId, Kubernetes Job name); absent before submission.",
        128,
      ),
    ),
    taskId: Type.Optional(Type.Integer({ minimum: 0, description: "Index of this task in the array." })),
    taskCount: Type.Optional(Type.Integer({ minimum: 1, description: "Number of tasks in the array." })),
  },
  { additionalProperties: false, description: "Array-job membership." },
);
export type ArrayInfo = Static<typeof ArrayInfo>;

/**
 * What a job asks for, independent of the scheduler.
 *
 * @example
 * ```ts
 * const spec: JobSpec = {
 *   cluster: "hpc1", scheduler: "slurm", user: "alice", partition: "gpu",
 *   requested: { memoryBytes: 64 * 2 ** 30, cores: 8, gpus: 1, walltimeSeconds: 4 * 3600 },
 * };
 * ```
 */
export const JobSpec = Type.Object(
  {
    cluster: ClusterId,
    scheduler: Scheduler,
    user: Name("User who submits the job (SLURM user name, Kubernetes user or service account).", 128),
    account: Type.Optional(Name("SLURM account, or Kubernetes namespace.", 128)),
    partition: Type.Optional(Name("SLURM partition or queue; Kubernetes node pool or queue name.", 128)),
    qos: Type.Optional(Name("Quality of service or priority class.", 128)),
    jobName: Type.Optional(Name("Job name as given to the scheduler.", 512)),
    executable: Type.Optional(
      Name("Command, executable or application id (for Kubernetes, the main container image).", 1024),
    ),
    scriptHash: Type.Optional(Sha256),
    array: Type.Optional(ArrayInfo),
    requested: ResourceRequest,
    submitTime: Type.Optional(Timestamp),
  },
  { $id: "JobSpec", additionalProperties: false, description: "What a job asks for, scheduler-neutral." },
);
export type JobSpec = Static<typeof JobSpec>;
