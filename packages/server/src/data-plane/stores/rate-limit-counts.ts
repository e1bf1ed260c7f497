/** Options of {@link RateLimitCounts}. */
export type RateLimitCountsOptions = {
  /** Most keys held; beyond, keys whose budget is whole are forgotten first, then the oldest. @default 100000 */
  maxKeys?: number;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
};

/** What one request of a key met. */
export type RateLimitDecision = {
  /** Whether the request was (or, from `peek`, would be) admitted. */
  admitted: boolean;
  /** Requests spent from the key's budget after this one (at most `max`). */
  spent: number;
  /** Refused: ms until one request's worth of budget is back; admitted: 0. */
  retryAfterMs: number;
  /** ms until the whole budget is back. */
  refillMs: number;
};

/** A key's hits in one fixed window, as PostgreSQL sums them over the replicas. */
export type WindowCount = {
  key: string;
  /** Start of the window, ms since the epoch (a multiple of the window's length). */
  windowStart: number;
  hits: number;
};

/** Hits of this process to store: a {@link WindowCount} with the time its row stops mattering. */
export type UnsentCount = WindowCount & {
  /** End of the window after this one, ms since the epoch: the row is read until then. */
  expiresAt: number;
};

/** One key's hits in one window, as this process knows them. */
type WindowHits = {
  /** This process's hits not yet sent to PostgreSQL. */
  unsent: number;
  /** This process's hits in the sync under way. */
  sending: number;
  /** This process's hits stored. */
  sent: number;
  /** The other replicas' hits seen at the last sync: the stored total minus `sent`. */
  others: number;
};

/** One key's budget: requests spent as of `at`, refilled continuously at `max / windowMs` per ms. */
type Budget = {
  spent: number;
  at: number;
  max: number;
  windowMs: number;
  /** By window start. */
  windows: Map<number, WindowHits>;
};

/** Start (ms since the epoch) of the fixed window of `windowMs` that holds `now`: the same on every replica. */
export function windowStartOf(now: number, windowMs: number): number {
  return Math.floor(now / windowMs) * windowMs;
}

/**
 * The counting behind `RateLimitStore`, without I/O: a budget per key of `max` requests that
 * refills continuously at `max / windowMs` (a token bucket: bursts of `max`, `max` per window on
 * average), spent at once by this process's requests and, at each sync, by the requests the other
 * replicas admitted meanwhile. Those are learnt from totals per (key, fixed window) summed in
 * PostgreSQL: the total minus this process's own stored hits, minus what was seen before.
 *
 * Hits of other replicas are spent when they are learnt, not when they happened (at most one sync
 * interval late); those of a window that is over have refilled by the time since its end at least,
 * and are spent less that. Windows older than the one before the current cannot matter any more:
 * a budget refills whole in one window. The budget never goes below zero (a refused request costs
 * nothing) nor above `max` (the replicas' overshoot between two syncs is not owed afterwards).
 *
 * @example
 * ```ts
 * const counts = new RateLimitCounts();
 * counts.hit("t:9f86…", 200, 4000); // { admitted: true, spent: 1, … }
 * const unsent = counts.takeUnsent(); // stored by the sync, which then…
 * counts.applyTotals(totalsFromPostgres); // …spends what the other replicas admitted
 * ```
 */
export class RateLimitCounts {
  readonly #budgets = new Map<string, Budget>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: RateLimitCountsOptions = {}) {
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** Spends one request of `key`'s budget of `max` per `windowMs`, unless fewer than one is left. */
  hit(key: string, max: number, windowMs: number): RateLimitDecision {
    const now = this.#now();
    let budget = this.#budgets.get(key);
    if (!budget) {
      if (this.#budgets.size >= this.#maxKeys) this.sweep();
      budget = { spent: 0, at: now, max, windowMs, windows: new Map() };
      this.#budgets.set(key, budget);
    }
    budget.max = max;
    budget.windowMs = Math.max(1, windowMs);
    refill(budget, now);
    const decision = decide(budget);
    if (decision.admitted) {
      budget.spent += 1;
      decision.spent = budget.spent;
      decision.refillMs = budget.spent / rate(budget);
      windowOf(budget, windowStartOf(now, budget.windowMs)).unsent += 1;
    }
    return decision;
  }

  /** What a request of `key` would meet now, spending nothing. */
  peek(key: string, max: number, windowMs: number): RateLimitDecision {
    const budget = this.#budgets.get(key);
    if (!budget) return { admitted: max >= 1, spent: 0, retryAfterMs: 0, refillMs: 0 };
    const copy = { ...budget, max, windowMs: Math.max(1, windowMs) };
    refill(copy, this.#now());
    return decide(copy);
  }

  /** Keys held (whose totals a sync reads). */
  keys(): string[] {
    return [...this.#budgets.keys()];
  }

  /** Keys held. */
  get size(): number {
    return this.#budgets.size;
  }

  /**
   * This process's hits not yet stored, marked as being sent; then either {@link applyTotals}
   * (stored) or {@link sendFailed} (they wait for the next sync). One sync at a time.
   */
  takeUnsent(): UnsentCount[] {
    const out: UnsentCount[] = [];
    for (const [key, budget] of this.#budgets) {
      for (const [windowStart, w] of budget.windows) {
        if (w.unsent === 0) continue;
        w.sending += w.unsent;
        out.push({ key, windowStart, hits: w.sending, expiresAt: windowStart + 2 * budget.windowMs });
        w.unsent = 0;
      }
    }
    return out;
  }

  /** The sync failed: the hits being sent wait for the next one. */
  sendFailed(): void {
    for (const budget of this.#budgets.values()) {
      for (const w of budget.windows.values()) {
        w.unsent += w.sending;
        w.sending = 0;
      }
    }
  }

  /**
   * The sync stored the hits being sent and read these totals (every replica's, this process's
   * included): the other replicas' hits not seen before are spent from the budgets.
   */
  applyTotals(totals: readonly WindowCount[]): void {
    const now = this.#now();
    for (const budget of this.#budgets.values()) {
      for (const w of budget.windows.values()) {
        w.sent += w.sending;
        w.sending = 0;
      }
    }
    for (const total of totals) {
      const budget = this.#budgets.get(total.key);
      if (!budget) continue;
      const w = windowOf(budget, total.windowStart);
      // Below what was seen after a restart of PostgreSQL (the table is UNLOGGED): nothing new.
      const fresh = total.hits - w.sent - w.others;
      if (fresh <= 0) continue;
      w.others += fresh;
      refill(budget, now);
      const since = Math.max(0, now - (total.windowStart + budget.windowMs));
      budget.spent = Math.min(budget.max, budget.spent + Math.max(0, fresh - since * rate(budget)));
    }
  }

  /**
   * Forgets windows past (their rows are no longer read) and keys whose budget is whole with no
   * window left; beyond `maxKeys`, the oldest keys too.
   */
  sweep(): void {
    const now = this.#now();
    for (const [key, budget] of this.#budgets) {
      refill(budget, now);
      for (const [start, w] of budget.windows) {
        if (w.sending === 0 && now >= start + 2 * budget.windowMs) budget.windows.delete(start);
      }
      if (budget.spent === 0 && budget.windows.size === 0) this.#budgets.delete(key);
    }
    for (const key of this.#budgets.keys()) {
      if (this.#budgets.size < this.#maxKeys) break;
      this.#budgets.delete(key);
    }
  }
}

function rate(budget: Budget): number {
  return budget.max / budget.windowMs;
}

function refill(budget: Budget, now: number): void {
  budget.spent = Math.max(0, budget.spent - Math.max(0, now - budget.at) * rate(budget));
  budget.at = Math.max(budget.at, now);
}

function decide(budget: Budget): RateLimitDecision {
  const r = rate(budget);
  if (budget.spent + 1 <= budget.max) {
    return { admitted: true, spent: budget.spent, retryAfterMs: 0, refillMs: budget.spent / r };
  }
  return {
    admitted: false,
    spent: budget.spent,
    retryAfterMs: (budget.spent + 1 - budget.max) / r,
    refillMs: budget.spent / r,
  };
}

function windowOf(budget: Budget, start: number): WindowHits {
  let w = budget.windows.get(start);
  if (!w) {
    w = { unsent: 0, sending: 0, sent: 0, others: 0 };
    budget.windows.set(start, w);
  }
  return w;
}
