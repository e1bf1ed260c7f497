import { describe, expect, it } from "vitest";
import { killedForMemory } from "./memory-kill.js";

const GiB = 2 ** 30;

describe("killedForMemory", () => {
  it("is a SIGKILL with the peak over the limit", () => {
    expect(killedForMemory(9, 3 * GiB, 2 * GiB)).toBe(true);
  });

  it("is not another signal, a peak within the limit, or a kill without a limit or a peak", () => {
    expect(killedForMemory(15, 3 * GiB, 2 * GiB)).toBe(false);
    expect(killedForMemory(9, 2 * GiB, 2 * GiB)).toBe(false);
    expect(killedForMemory(9, 3 * GiB, undefined)).toBe(false);
    expect(killedForMemory(9, 3 * GiB, 0)).toBe(false);
    expect(killedForMemory(9, undefined, 2 * GiB)).toBe(false);
    expect(killedForMemory(undefined, 3 * GiB, 2 * GiB)).toBe(false);
  });
});
