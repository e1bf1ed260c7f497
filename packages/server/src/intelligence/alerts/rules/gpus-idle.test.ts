import { describe, expect, it } from "vitest";
import { DEFAULT_ALERT_THRESHOLDS as T } from "../alert-thresholds.js";
import { gpusIdle } from "./gpus-idle.js";
import { gpu, liveJob, series } from "./series-fixture.js";

/** A reading of MIG instance `gi` (profile 1g.5gb) of GPU `index`. */
const mig = (index: number, gi: number, utilizationPercent: number, memoryUsedBytes = 2 ** 30) => ({
  ...gpu(index, utilizationPercent),
  memoryUsedBytes,
  mig: { gpuInstanceId: gi, profile: "1g.5gb" },
});

describe("gpus-idle", () => {
  it("fires when every GPU stayed below the threshold for the whole idle period, citing each GPU", () => {
    const job = liveJob([
      ...series({ minutes: 40, node: "n1", at: () => ({ gpus: [gpu(0, 1), gpu(1, 4)] }) }),
      ...series({ minutes: 40, node: "n2", at: (m) => ({ gpus: [gpu(0, m < 5 ? 90 : 0)] }) }),
    ]);
    const verdict = gpusIdle.evaluate(job, T);
    expect(verdict).toMatchObject({ holds: true, severity: "warning" });
    if (verdict.holds !== true) throw new Error("expected to fire");
    expect(verdict.message).toBe(
      "All 3 GPUs of the job stayed below 5% utilisation for 30 min (highest 4%): reserved and idle.",
    );
    expect(verdict.evidence).toHaveLength(3);
    expect(verdict.evidence[1]).toMatchObject({
      kind: "metric",
      source: "nvidia-smi",
      field: "utilization.gpu",
      metric: "gpus.1.utilizationPercent",
      node: "n1",
      gpuIndex: 1,
      unit: "%",
      window: { start: "2026-12-02T10:10:00.000Z", end: "2026-12-02T10:40:00.000Z" },
    });
    expect(verdict.evidence[1].values).toHaveLength(31);
    expect(new Set(verdict.evidence[1].values)).toEqual(new Set([4]));
  });

  it("does not fire while one GPU is busy within the period", () => {
    const job = liveJob(
      series({ minutes: 40, at: (m) => ({ gpus: [gpu(0, 0), gpu(1, m === 25 ? 60 : 0)] }) }),
    );
    expect(gpusIdle.evaluate(job, T)).toEqual({ holds: false });
  });

  it("tells two MIG instances of one GPU apart, citing each idle instance by name", () => {
    const idle = gpusIdle.evaluate(
      liveJob(series({ minutes: 40, at: () => ({ gpus: [mig(1, 13, 1), mig(1, 14, 3, 0)] }) })),
      T,
    );
    if (idle.holds !== true) throw new Error("expected to fire");
    expect(idle.message).toBe(
      "All 2 GPUs of the job stayed below 5% utilisation for 30 min (highest 3%): reserved and idle.",
    );
    expect(idle.evidence.map((e) => [e.metric, e.gpuIndex, e.text, [...new Set(e.values)]])).toEqual([
      [
        "gpus.1/gi13.utilizationPercent",
        1,
        "GPU 1 MIG 1g.5gb (GI 13) on n1: utilization.gpu at most 1% over the last 30 min",
        [1],
      ],
      [
        "gpus.1/gi14.utilizationPercent",
        1,
        "GPU 1 MIG 1g.5gb (GI 14) on n1: utilization.gpu at most 3% over the last 30 min",
        [3],
      ],
    ]);
    expect(idle.evidence[0].values).toHaveLength(31);
  });

  it("does not fire while the other MIG instance of the same GPU is busy", () => {
    const job = liveJob(
      series({ minutes: 40, at: () => ({ gpus: [mig(1, 13, 90, 4 * 2 ** 30), mig(1, 14, 0, 0)] }) }),
    );
    expect(gpusIdle.evaluate(job, T)).toEqual({ holds: false });
  });

  it("does not judge before the readings reach back the whole period, nor a job without GPUs", () => {
    expect(gpusIdle.evaluate(liveJob(series({ minutes: 29, at: () => ({ gpus: [gpu(0, 0)] }) })), T)).toEqual(
      {
        holds: "unknown",
        reason: "GPU readings span less than 30 min",
      },
    );
    expect(
      gpusIdle.evaluate(liveJob(series({ minutes: 60, at: () => ({ memory: { currentBytes: 1 } }) })), T),
    ).toEqual({ holds: "unknown", reason: "no GPU readings" });
  });

  it("resolves once the GPUs work again, and follows the configured thresholds", () => {
    const idleThenBusy = series({ minutes: 45, at: (m) => ({ gpus: [gpu(0, m >= 44 ? 70 : 2)] }) });
    expect(gpusIdle.evaluate(liveJob(idleThenBusy.slice(0, 41)), T).holds).toBe(true);
    expect(gpusIdle.evaluate(liveJob(idleThenBusy), T)).toEqual({ holds: false });
    const lenient = { ...T, gpuIdlePercent: 80, gpuIdleMinutes: 10 };
    expect(gpusIdle.evaluate(liveJob(idleThenBusy), lenient).holds).toBe(true);
  });
});
