import { compileValidator, EvidenceRefSchema } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "../alert-thresholds.js";
import { liveJob, series, T0 } from "./series-fixture.js";
import { walltimeOverrun } from "./walltime-overrun.js";

const started = new Date(T0).toISOString();

/** A job reporting `perMinute` steps a minute out of `total`, for `minutes`, with a walltime. */
function training(options: { perMinute: number; total: number; minutes: number; walltimeMinutes: number }) {
  const samples = series({
    minutes: options.minutes,
    at: (m) => ({ progress: { done: m * options.perMinute, total: options.total, unit: "step" } }),
  });
  return liveJob(samples, { startedAt: started, walltimeSeconds: options.walltimeMinutes * 60 });
}

describe("walltime-overrun", () => {
  it("fires when the reported progress projects an end past the walltime, with the projected end", () => {
    // 10 steps/min for 40 min: 400 of 3000 steps, the rest takes 260 min more; walltime 2 h.
    const verdict = walltimeOverrun.evaluate(
      training({ perMinute: 10, total: 3000, minutes: 40, walltimeMinutes: 120 }),
      T,
    );
    expect(verdict).toMatchObject({ holds: true, severity: "critical" });
    if (verdict.holds !== true) throw new Error("expected to fire");
    expect(verdict.projectedAt).toBe(new Date(T0 + 300 * 60_000).toISOString());
    expect(verdict.message).toBe(
      "At 600 steps/h the job needs until 2026-12-02T15:00:00.000Z for the remaining 2600 of 3000 steps: 3 h 0 min past its walltime, which ends it first.",
    );
    expect(verdict.evidence[0]).toMatchObject({
      kind: "metric",
      source: "job",
      field: "progress.done",
      metric: "progress.done",
      unit: "{step}",
      window: { start: "2026-12-02T10:10:00.000Z", end: "2026-12-02T10:40:00.000Z" },
    });
    expect(verdict.evidence[0].values?.at(-1)).toBe(400);
    const valid = compileValidator(EvidenceRefSchema);
    for (const e of verdict.evidence) expect(valid.validate(e).ok, JSON.stringify(e)).toBe(true);
    expect(verdict.evidence[1]).toMatchObject({
      kind: "scheduler",
      metric: "spec.requested.walltimeSeconds",
      values: [7200],
      window: { start: started, end: "2026-12-02T12:00:00.000Z" },
    });
  });

  it("does not fire when the job finishes within its walltime and the margin, or has finished", () => {
    // 3000 steps at 10/min end at 300 min: within a walltime of 5 h 2 min (margin 5 min).
    expect(
      walltimeOverrun.evaluate(
        training({ perMinute: 10, total: 3000, minutes: 40, walltimeMinutes: 298 }),
        T,
      ),
    ).toEqual({ holds: false });
    expect(
      walltimeOverrun.evaluate(training({ perMinute: 10, total: 3000, minutes: 40, walltimeMinutes: 290 }), T)
        .holds,
    ).toBe(true);
    expect(
      walltimeOverrun.evaluate(
        training({ perMinute: 100, total: 3000, minutes: 40, walltimeMinutes: 10 }),
        T,
      ),
    ).toEqual({ holds: false });
  });

  it("stays silent without reported progress: elapsed time alone is no measure of it", () => {
    const noProgress = liveJob(series({ minutes: 60, at: () => ({ memory: { currentBytes: 1 } }) }), {
      startedAt: started,
      walltimeSeconds: 600,
    });
    expect(walltimeOverrun.evaluate(noProgress, T)).toEqual({
      holds: "unknown",
      reason: "progress was not measurable: the job reports no progress",
    });
    const noWalltime = training({ perMinute: 10, total: 3000, minutes: 40, walltimeMinutes: 60 });
    delete noWalltime.walltimeSeconds;
    expect(walltimeOverrun.evaluate(noWalltime, T).holds).toBe("unknown");
    expect(
      walltimeOverrun.evaluate(training({ perMinute: 10, total: 3000, minutes: 20, walltimeMinutes: 60 }), T),
    ).toEqual({ holds: "unknown", reason: "progress readings span less than 30 min" });
    expect(
      walltimeOverrun.evaluate(training({ perMinute: 0, total: 3000, minutes: 40, walltimeMinutes: 60 }), T),
    ).toEqual({ holds: "unknown", reason: "no progress over the last 30 min" });
  });

  it("fits the recent rate: a job that sped up is judged by its recent pace", () => {
    // Slow (1 step/min) for 60 min, then 20 steps/min: at the recent pace it ends well in time.
    const samples = series({
      minutes: 100,
      at: (m) => ({ progress: { done: m <= 60 ? m : 60 + (m - 60) * 20, total: 3000 } }),
    });
    const job = liveJob(samples, { startedAt: started, walltimeSeconds: 5 * 3600 });
    expect(walltimeOverrun.evaluate(job, T)).toEqual({ holds: false });
    expect(walltimeOverrun.evaluate(job, { ...T, walltimeFitMinutes: 100 }).holds).toBe(true);
  });
});
