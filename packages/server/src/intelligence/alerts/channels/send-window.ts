/**
 * A budget of sends: at most `max` in any 60 seconds, or in any `windowMs` when given (a
 * sliding window of the times of the last sends).
 *
 * @example
 * ```ts
 * const window = new SendWindow(20);
 * if (window.take(Date.now())) await send();
 * ```
 */
export class SendWindow {
  readonly #sent: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Spends one send at `nowMs` if the budget allows; false when it is spent. */
  take(nowMs: number): boolean {
    if (!this.room(nowMs)) return false;
    this.#sent.push(nowMs);
    return true;
  }

  /** Whether a send at `nowMs` fits the budget, without spending it. */
  room(nowMs: number): boolean {
    while (this.#sent.length > 0 && this.#sent[0] <= nowMs - this.windowMs) this.#sent.shift();
    return this.#sent.length < this.max;
  }
}
