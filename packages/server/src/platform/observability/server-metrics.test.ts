import { register } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { ServerMetrics } from "./server-metrics.js";

describe("ServerMetrics", () => {
  const opened: ServerMetrics[] = [];
  const open = (...args: ConstructorParameters<typeof ServerMetrics>) => {
    const metrics = new ServerMetrics(...args);
    opened.push(metrics);
    return metrics;
  };
  afterEach(() => {
    for (const metrics of opened.splice(0)) metrics.close();
  });

  it("keeps each instance's metrics apart, and out of prom-client's global registry", async () => {
    const a = open();
    const b = open();
    a.observeRequest("listJobs", 200, 0.004);
    a.observeRequest("listJobs", 200, 0.002);
    b.observeRequest("getJob", 404, 0.001);
    const textA = await a.render();
    const textB = await b.render();
    expect(textA).toContain('jobsight_http_requests_total{operation="listJobs",status="200"} 2\n');
    expect(textA).not.toContain("getJob");
    expect(textB).toContain('jobsight_http_requests_total{operation="getJob",status="404"} 1\n');
    expect(textB).not.toContain("listJobs");
    expect(register.getSingleMetric("jobsight_http_requests_total")).toBeUndefined();
    expect(a.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  it("reads its sources at each scrape and leaves out only a source that throws", async () => {
    let state: "valid" | "expired" = "valid";
    const metrics = open({
      licence: () => state,
      pool: () => {
        throw new Error("pool gone");
      },
      model: () => ({ version: undefined, mode: "shadow" }),
      leader: () => state === "valid",
    });
    expect(await metrics.render()).toContain('jobsight_licence_state{state="valid"} 1\n');
    expect(await metrics.render()).toContain("jobsight_leader 1\n");
    state = "expired";
    const text = await metrics.render();
    expect(text).toContain('jobsight_licence_state{state="valid"} 0\n');
    expect(text).toContain('jobsight_licence_state{state="expired"} 1\n');
    expect(text).toContain('jobsight_model_info{version="none",mode="shadow"} 1\n');
    expect(text).toContain("jobsight_leader 0\n");
    expect(text).toContain("# TYPE process_cpu_seconds_total counter\n");
    expect(text).not.toContain("jobsight_db_pool_connections");
  });

  it("counts OTLP exports, and caps the metric names a sender can turn into series", async () => {
    const metrics = open();
    const byName = Object.fromEntries(Array.from({ length: 205 }, (_, i) => [`site.metric.${i}`, 1]));
    metrics.observeOtlpExport({
      accepted: 3,
      duplicates: 1,
      rejected: 2,
      skipped: { byReason: { unknown_metric: byName } },
    });
    metrics.observeOtlpExport({
      accepted: 2,
      duplicates: 0,
      rejected: 0,
      skipped: { byReason: { unattributed: { "container.cpu.time": 4 } } },
    });
    const text = await metrics.render();
    expect(text).toContain('jobsight_otlp_samples_total{outcome="accepted"} 5\n');
    expect(text).toContain('jobsight_otlp_samples_total{outcome="duplicate"} 1\n');
    expect(text).toContain("jobsight_otlp_points_rejected_total 2\n");
    expect(text).toContain(
      'jobsight_otlp_points_skipped_total{reason="unknown_metric",metric="site.metric.0"} 1\n',
    );
    expect(text).toContain('jobsight_otlp_points_skipped_total{reason="unknown_metric",metric="other"} 5\n');
    // Past 200 distinct names, any new one is counted as "other", in later exports too.
    expect(text).toContain('jobsight_otlp_points_skipped_total{reason="unattributed",metric="other"} 4\n');
  });
});
