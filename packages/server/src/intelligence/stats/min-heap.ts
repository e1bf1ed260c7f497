/** A binary min-heap of items keyed by a number (used to release jobs at their end time). */
export class MinHeap<T> {
  readonly #keys: number[] = [];
  readonly #items: T[] = [];

  get size(): number {
    return this.#keys.length;
  }

  /** Smallest key, or Infinity when empty. */
  peekKey(): number {
    return this.#keys.length > 0 ? this.#keys[0] : Number.POSITIVE_INFINITY;
  }

  push(key: number, item: T): void {
    const keys = this.#keys;
    const items = this.#items;
    let i = keys.length;
    keys.push(key);
    items.push(item);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p] <= key) break;
      keys[i] = keys[p];
      items[i] = items[p];
      i = p;
    }
    keys[i] = key;
    items[i] = item;
  }

  pop(): T | undefined {
    const keys = this.#keys;
    const items = this.#items;
    if (keys.length === 0) return undefined;
    const top = items[0];
    const lastKey = keys.pop() as number;
    const lastItem = items.pop() as T;
    const n = keys.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && keys[r] < keys[l] ? r : l;
        if (keys[c] >= lastKey) break;
        keys[i] = keys[c];
        items[i] = items[c];
        i = c;
      }
      keys[i] = lastKey;
      items[i] = lastItem;
    }
    return top;
  }
}
