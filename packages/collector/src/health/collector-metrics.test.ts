import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import { CollectorMetrics } from "./collector-metrics.js";

describe("CollectorMetrics", () => {
  it("reads the health report at each scrape, in a registry of its own", async () => {
    let sent = 10;
    const metrics = await CollectorMetrics.create(() => ({
      status: sent > 10 ? "degraded" : "ok",
      lagSeconds: 2.5,
      spool: { bytes: 4096, unacked: 3, droppedSamples: 0 },
      shipper: { sentBatches: 2, sentRecords: sent, rejectedRecords: 1, failures: 0 },
      collector: { rounds: 7, failedRounds: 0, jobs: 4 },
    }));
    const other = await CollectorMetrics.create(() => ({ status: "failing" }));
    let text = await metrics.render();
    expect(text).toContain('jobsight_collector_status{status="ok"} 1\n');
    expect(text).toContain("# TYPE jobsight_collector_shipped_records_total counter\n");
    expect(text).toContain("jobsight_collector_shipped_records_total 10\n");
    expect(text).toContain("jobsight_collector_lag_seconds 2.5\n");
    expect(text).toContain("jobsight_collector_jobs 4\n");
    sent = 25;
    text = await metrics.render();
    expect(text).toContain("jobsight_collector_shipped_records_total 25\n");
    expect(text).toContain('jobsight_collector_status{status="degraded"} 1\n');
    expect(await other.render()).toContain('jobsight_collector_status{status="failing"} 1\n');
    expect(register.getSingleMetric("jobsight_collector_status")).toBeUndefined();
    expect(metrics.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  });
});
