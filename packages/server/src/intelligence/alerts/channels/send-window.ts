/**
 * A per-minute budget of sends: at most `maxPerMinute` in any 60 seconds (a sliding window of the
 * times of the last sends).
 *
 * @example
 * ```ts
 * const window = new SendWindow(20);
 * if (window.take(Date.now())) await send();
 * ```
 */
export class SendWindow {
  readonly #sent: number[] = [];

  constructor(private readonly maxPerMinute: number) {}

  /** Spends one send at `nowMs` if the budget allows; false when it is spent. */
  take(nowMs: number): boolean {
    while (this.#sent.length > 0 && this.#sent[0] <= nowMs - 60_000) this.#sent.shift();
    if (this.#sent.length >= this.maxPerMinute) return false;
    this.#sent.push(nowMs);
    return true;
  }
}
