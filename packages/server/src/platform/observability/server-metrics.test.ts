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
    });
    expect(await metrics.render()).toContain('jobsight_licence_state{state="valid"} 1\n');
    state = "expired";
    const text = await metrics.render();
    expect(text).toContain('jobsight_licence_state{state="valid"} 0\n');
    expect(text).toContain('jobsight_licence_state{state="expired"} 1\n');
    expect(text).toContain('jobsight_model_info{version="none",mode="shadow"} 1\n');
    expect(text).toContain("# TYPE process_cpu_seconds_total counter\n");
    expect(text).not.toContain("jobsight_db_pool_connections");
  });
});
