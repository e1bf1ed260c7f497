import { describe, expect, it } from "vitest";
import { collectBetweenPhases } from "./training-heap.js";

describe("collectBetweenPhases", () => {
  it("frees what nothing refers to any more", async () => {
    const ref = (() => new WeakRef({ rows: new Array(10_000).fill(1) }))();
    // A WeakRef's target is kept until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectBetweenPhases();
    expect(ref.deref()).toBeUndefined();
  });

  it("keeps what is still referred to", async () => {
    const kept = { rows: [1, 2, 3] };
    const ref = new WeakRef(kept);
    await new Promise((resolve) => setImmediate(resolve));
    collectBetweenPhases();
    expect(ref.deref()).toBe(kept);
  });
});
