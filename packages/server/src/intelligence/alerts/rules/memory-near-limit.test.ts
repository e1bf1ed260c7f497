import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "../alert-thresholds.js";
import { growthPerMs, memoryNearLimit } from "./memory-near-limit.js";
import { liveJob, series } from "./series-fixture.js";

const MiB = 2 ** 20;
const LIMIT = 10_000 * MiB;
const memory = (currentBytes: number, limitBytes: number | null = LIMIT) => ({
  memory: { currentBytes, ...(limitBytes === null ? {} : { limitBytes }) },
});

describe("memory-near-limit", () => {
  it("fires near the limit and rising, with the time the line through the recent samples reaches it", () => {
    // 8000 MiB + 100 MiB/min: 9500 MiB (95%) at 10:15, so the limit at 10:20.
    const job = liveJob(series({ minutes: 15, at: (m) => memory(8000 * MiB + m * 100 * MiB) }));
    const verdict = memoryNearLimit.evaluate(job, T);
    if (verdict.holds !== true) throw new Error(`expected to fire: ${JSON.stringify(verdict)}`);
    expect(verdict.projectedAt).toBe("2026-12-02T10:20:00.000Z");
    expect(verdict.severity).toBe("critical");
    expect(verdict.message).toBe(
      "Memory on n1 is at 95% of its 9.8 GiB limit and rising 100 MiB/min: the limit in about 5 min (2026-12-02T10:20:00.000Z); likely killed for memory.",
    );
    expect(verdict.evidence.map((e) => [e.source, e.metric, e.window])).toEqual([
      [
        "cgroup:memory.current",
        "memory.currentBytes",
        { start: "2026-12-02T10:05:00.000Z", end: "2026-12-02T10:15:00.000Z" },
      ],
      [
        "cgroup:memory.max",
        "memory.limitBytes",
        { start: "2026-12-02T10:15:00.000Z", end: "2026-12-02T10:15:00.000Z" },
      ],
    ]);
    expect(verdict.evidence[0].values).toHaveLength(11);
    expect(verdict.evidence[0].values?.at(-1)).toBe(9500 * MiB);
    expect(verdict.evidence[1].values).toEqual([LIMIT]);
  });

  it("projects from a least-squares line, not from the last two samples", () => {
    // Noisy readings around 200 MiB/min: the fitted rate stays close to it.
    const noise = [0, 60, -60, 30, -30, 0, 45, -45, 15, -15, 0];
    const points = noise.map((n, i) => ({ t: i * 60_000, v: (9000 + i * 200 + n) * MiB }));
    expect((growthPerMs(points) * 60_000) / MiB).toBeCloseTo(200, -1);
    expect(growthPerMs([{ t: 0, v: 5 }])).toBe(0);
  });

  it("picks the cgroup closest to its limit and names its step", () => {
    const job = liveJob([
      ...series({ minutes: 15, step: "batch", at: (m) => memory(8000 * MiB + m * 100 * MiB) }),
      ...series({ minutes: 15, step: "0", at: (m) => memory(8500 * MiB + m * 100 * MiB) }),
    ]);
    const verdict = memoryNearLimit.evaluate(job, T);
    if (verdict.holds !== true) throw new Error("expected to fire");
    expect(verdict.projectedAt).toBe("2026-12-02T10:15:00.000Z");
    expect(verdict.evidence[0]).toMatchObject({ node: "n1", step: "0" });
  });

  it("does not fire when memory is high but flat, rising slowly, or rising fast far from the limit", () => {
    const flat = series({ minutes: 15, at: () => memory(9700 * MiB) });
    const slow = series({ minutes: 15, at: (m) => memory(9300 * MiB + m * 10 * MiB) });
    const low = series({ minutes: 15, at: (m) => memory(4000 * MiB + m * 300 * MiB) });
    for (const samples of [flat, slow, low])
      expect(memoryNearLimit.evaluate(liveJob(samples), T)).toEqual({ holds: false });
  });

  it("resolves when memory falls back, and does not judge without a limit or with too few samples", () => {
    const rising = series({ minutes: 15, at: (m) => memory(8000 * MiB + m * 100 * MiB) });
    const freed = series({ minutes: 3, startMinute: 16, at: () => memory(4000 * MiB) });
    expect(memoryNearLimit.evaluate(liveJob([...rising, ...freed]), T)).toEqual({ holds: false });
    const unlimited = series({ minutes: 15, at: (m) => memory(8000 * MiB + m * 100 * MiB, null) });
    expect(memoryNearLimit.evaluate(liveJob(unlimited), T).holds).toBe("unknown");
    const two = series({ minutes: 1, at: (m) => memory(9500 * MiB + m * 100 * MiB) });
    expect(memoryNearLimit.evaluate(liveJob(two), T).holds).toBe("unknown");
  });
});
