/** The predictor did not answer within the deadline. */
export class PredictTimeoutError extends Error {
  readonly code = "PREDICT_TIMEOUT";
  constructor(readonly deadlineMs: number) {
    super(`no prediction within ${deadlineMs} ms`);
    this.name = "PredictTimeoutError";
  }
}

/**
 * Run `work` with a deadline: resolves with its result, or rejects with
 * {@link PredictTimeoutError} when the deadline passes first, and then aborts the signal `work`
 * was given so it can stop. The timer never keeps the process alive.
 *
 * @example
 * ```ts
 * const prediction = await withDeadline(2000, (signal) => predict(spec, { signal }));
 * ```
 */
export function withDeadline<T>(deadlineMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new PredictTimeoutError(deadlineMs));
      controller.abort(new PredictTimeoutError(deadlineMs));
    }, deadlineMs);
    timer.unref?.();
    let started: Promise<T>;
    try {
      started = work(controller.signal);
    } catch (error) {
      clearTimeout(timer);
      reject(error);
      return;
    }
    started.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
