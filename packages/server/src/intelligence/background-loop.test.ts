import { describe, expect, it } from "vitest";
import { BackgroundLoop } from "./background-loop.js";

describe("BackgroundLoop", () => {
  it("never throws into its host: failures are counted and the next tick runs", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = new BackgroundLoop({
      intervalMs: 5,
      run: async () => {
        calls++;
        if (calls === 1) throw new Error("boom");
      },
      onError: (e) => errors.push(e),
    });
    loop.start();
    await new Promise((r) => setTimeout(r, 60));
    await loop.stop();
    expect(errors).toHaveLength(1);
    expect(loop.failures).toBe(1);
    expect(calls).toBeGreaterThan(1);
  });

  it("skips a tick while the previous one still runs", async () => {
    let running = 0;
    let most = 0;
    let release: () => void = () => {};
    const loop = new BackgroundLoop({
      intervalMs: 1000,
      run: () => {
        running++;
        most = Math.max(most, running);
        return new Promise<void>((r) => {
          release = () => {
            running--;
            r();
          };
        });
      },
    });
    const a = loop.runNow();
    const b = loop.runNow();
    release();
    await Promise.all([a, b]);
    expect(most).toBe(1);
    expect(loop.runs).toBe(1);
  });
});
