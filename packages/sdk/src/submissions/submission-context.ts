import type { JobSpec } from "@jobsight/schemas";

/** What a submission file does not say but a `JobSpec` needs. */
export type SubmissionContext = {
  /** The registered cluster the job will run on. */
  cluster: string;
  /** Who submits it (SLURM user name, Kubernetes user or service account). */
  user: string;
};

/** A submission read into a scheduler-neutral `JobSpec`. */
export type ParsedSubmission = {
  format: "sbatch" | "kubernetes";
  spec: JobSpec;
  /** Values the scheduler would refuse or that could not be read, in words. */
  warnings: string[];
};
