import { describe, expect, it } from "vitest";
import { MetricsRegistry } from "./metrics-registry.js";

describe("MetricsRegistry", () => {
  it("renders counters per label set, whatever the order of the labels", async () => {
    const registry = new MetricsRegistry();
    const c = registry.counter("x_total", "Things\nseen", ["a", "b"]);
    c.inc({ a: "1", b: "2" });
    c.inc({ b: "2", a: "1" }, 2);
    c.inc({ a: 'q"uo\\te\n', b: "3" });
    expect(await registry.render()).toBe(
      [
        "# HELP x_total Things\\nseen",
        "# TYPE x_total counter",
        'x_total{a="1",b="2"} 3',
        'x_total{a="q\\"uo\\\\te\\n",b="3"} 1',
        "",
      ].join("\n"),
    );
    expect(() => c.inc({}, -1)).toThrow(/not possible to decrease a counter/);
  });

  it("renders cumulative histogram buckets, +Inf, sum and count", async () => {
    const registry = new MetricsRegistry();
    const h = registry.histogram("d_seconds", "Durations", ["op"], [0.1, 1, 0.01]);
    for (const v of [0.005, 0.05, 0.5, 5]) h.observe({ op: "p" }, v);
    const text = await registry.render();
    // prom-client writes the bucket's `le` before the series' own labels.
    expect(text).toContain('d_seconds_bucket{le="0.01",op="p"} 1\n');
    expect(text).toContain('d_seconds_bucket{le="0.1",op="p"} 2\n');
    expect(text).toContain('d_seconds_bucket{le="1",op="p"} 3\n');
    expect(text).toContain('d_seconds_bucket{le="+Inf",op="p"} 4\n');
    expect(text).toContain('d_seconds_sum{op="p"} 5.555\n');
    expect(text).toContain('d_seconds_count{op="p"} 4\n');
  });

  it("reads gauges when rendering and leaves out one whose callback throws", async () => {
    const registry = new MetricsRegistry();
    let n = 1;
    registry.gauge("g", "A gauge", [], () => [{ labels: {}, value: n }]);
    registry.gauge("broken", "Throws", [], () => {
      throw new Error("no");
    });
    n = 7;
    expect(await registry.render()).toBe("# HELP g A gauge\n# TYPE g gauge\ng 7\n");
  });

  it("refuses an invalid or duplicate name", () => {
    const registry = new MetricsRegistry();
    registry.counter("a_total", "x");
    expect(() => registry.counter("a_total", "x")).toThrow(/already been registered/);
    expect(() => registry.counter("bad-name", "x")).toThrow(/invalid metric name/i);
  });
});
