/** What a canceller answered: whether the scheduler took the cancellation, and its words. */
export type CancelResult = { ok: boolean; detail: string };

/** Cancels running jobs of one scheduler; never throws (a failure is a result). */
export type JobCanceller = {
  /** Named in the audit log: scancel, kubernetes. */
  readonly executor: string;
  cancel(jobId: string): Promise<CancelResult>;
};

/** The first `max` characters of a text for the audit log. */
export const clip = (text: string, max = 2048) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
