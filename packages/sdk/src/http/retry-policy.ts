/** How retries are spaced. */
export type RetryTiming = {
  /** Delay before the first retry, doubled for each further one. */
  baseDelayMs: number;
  /** Upper bound of a back-off delay (not of a server's `Retry-After`). */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number;
};

/** Statuses that mean "try again": the request did not take effect, or it is safe to resend it. */
export function isRetryableStatus(status: number): boolean {
  // 501 and 505 say the server will never do it; retrying cannot help.
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/**
 * Exponential back-off with "equal jitter": half the delay is fixed, half random, so clients that
 * failed together do not retry together, yet none retries immediately.
 */
export function backoffDelayMs(
  retryNumber: number,
  timing: RetryTiming,
  random: () => number = Math.random,
): number {
  const exp = Math.min(timing.maxDelayMs, timing.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/**
 * Parse a `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Returns milliseconds, or undefined when absent or malformed.
 */
export function parseRetryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Sleep, waking early (with the signal's reason) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
