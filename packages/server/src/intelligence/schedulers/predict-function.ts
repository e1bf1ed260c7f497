import type { JobSpec, Prediction, PredictionMode } from "@jobsight/schemas";

/** What a scheduler integration needs of a prediction; a recorded `Prediction` fits. */
export type PredictionResult = Pick<Prediction, "modelVersion" | "resources"> & {
  id?: string;
  /** `shadow`: the deployment only records; nothing is applied. */
  mode?: PredictionMode;
};

/**
 * Predicts a job about to be submitted. The integrations call it with a deadline and abort the
 * signal when it passes; an implementation should stop work then.
 *
 * @example
 * ```ts
 * const predict: PredictFunction = async (spec, { signal }) => predictions.create({ spec }, { signal });
 * ```
 */
export type PredictFunction = (spec: JobSpec, context: { signal: AbortSignal }) => Promise<PredictionResult>;

/** A minimal structured logger (pino's and fastify's `request.log` fit). */
export type SchedulerLogger = {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
};

/** A logger that drops everything. */
export const SILENT_LOGGER: SchedulerLogger = { info: () => {}, warn: () => {} };
