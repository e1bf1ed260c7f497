import { describe, expect, it } from "vitest";
import { HeapTrim } from "./heap-trim.js";

const MiB = 1024 * 1024;

describe("HeapTrim", () => {
  it("collects only once the old generation grew by the step since the last collection", () => {
    let used = 6 * MiB;
    let collections = 0;
    const trim = new HeapTrim({
      stepBytes: 2 * MiB,
      oldSpaceUsed: () => used,
      gc: () => {
        collections++;
        used = 6.5 * MiB; // what is still alive
      },
    });
    used += 1.5 * MiB;
    expect(trim.afterRound()).toBe(false);
    used += 1 * MiB;
    expect(trim.afterRound()).toBe(true);
    expect(collections).toBe(1);
    // The new baseline is what survived, not the first one.
    used = 8 * MiB;
    expect(trim.afterRound()).toBe(false);
    used = 8.6 * MiB;
    expect(trim.afterRound()).toBe(true);
    expect(trim.collections).toBe(2);
  });

  it("does nothing where the process exposes no collection", () => {
    const trim = new HeapTrim({ oldSpaceUsed: () => 1e9, gc: undefined });
    // `gc: undefined` falls back to globalThis.gc, which vitest does not expose.
    expect(trim.enabled).toBe(typeof globalThis.gc === "function");
    if (!trim.enabled) expect(trim.afterRound()).toBe(false);
  });
});
