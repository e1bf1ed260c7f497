/** One page of a cursor-paginated list. */
export type Page<T> = { items: T[]; nextCursor: string | null };

/**
 * A lazily fetched list: iterate items with `for await`, or whole pages with `pages()`. A page is
 * requested only when the previous one has been consumed.
 *
 * @example
 * ```ts
 * for await (const job of client.jobs.list({ user: "alice", state: "FAILED" })) console.log(job.jobId);
 * for await (const page of client.jobs.list({ limit: 500 }).pages()) console.log(page.items.length);
 * ```
 */
export class PagedList<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** Every page, first to last. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Collect up to `max` items (all when omitted) into an array. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
