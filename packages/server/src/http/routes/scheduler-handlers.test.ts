import { describe, expect, it } from "vitest";
import { answerWithin } from "./scheduler-handlers.js";

describe("answerWithin", () => {
  it("keeps the webhook's answer inside the API server's ?timeout=", () => {
    expect(answerWithin("3s")).toBe(2700);
    expect(answerWithin("1m")).toBe(59_700);
    expect(answerWithin("1500ms")).toBe(1200);
    // Never below 100 ms: a prediction from the cache still has a chance.
    expect(answerWithin("200ms")).toBe(100);
  });

  it("sets no limit of its own without a readable timeout", () => {
    for (const timeout of [undefined, "", "3", "3h", "-1s"]) expect(answerWithin(timeout)).toBeUndefined();
  });
});
