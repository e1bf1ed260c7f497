import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CadvisorSource, cadvisorUsage } from "./cadvisor.js";
import { parsePrometheusText } from "./prometheus-text.js";

// Recorded in the kubelet's exposition: cgroup v2, systemd driver, containerd, one burstable and one guaranteed pod.
const fixture = readFileSync(join(import.meta.dirname, "fixtures", "kubelet-metrics-cadvisor.prom"), "utf8");
const TRAIN = "8d5d1b2a-3c4e-4f60-9a7b-2e1f0c3d4b5a";
const INFER = "c0ffee00-1111-4222-8333-444455556666";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
});

/** A real HTTP server on 127.0.0.1 serving `body()` on /metrics/cadvisor as the kubelet does. */
async function serve(body: () => string, status: () => number = () => 200): Promise<string> {
  server = createServer((req, res) => {
    if (req.url !== "/metrics/cadvisor") return void res.writeHead(404).end();
    res.writeHead(status(), { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(body());
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics/cadvisor`;
}

describe("CadvisorSource", () => {
  it("reads each pod's cgroup usage from the kubelet, keyed by the pod UID in the cgroup path", async () => {
    const source = new CadvisorSource({ url: await serve(() => fixture) });
    const pods = await source.read();
    expect(source.status).toBe("running");
    expect([...pods!.keys()].sort()).toEqual([TRAIN, INFER].sort());
    // The pod-level cgroup's rows, not the sum of its containers and pause sandbox.
    expect(pods!.get(TRAIN)).toEqual({
      memory: {
        currentBytes: 9663676416,
        peakBytes: 9663676416,
        limitBytes: 17179869184,
        anonBytes: 8455716864,
      },
      cpu: { usageSeconds: 48211.734, periods: 182345, throttledPeriods: 4123 },
    });
    expect(pods!.get(INFER)).toMatchObject({
      memory: { currentBytes: 3221225472, limitBytes: 4294967296 },
      cpu: { usageSeconds: 9811.06, throttledPeriods: 0 },
    });
  });

  it("keeps the largest working set seen as the peak where cgroup v2 reports no max usage", async () => {
    let text = fixture;
    const source = new CadvisorSource({ url: await serve(() => text) });
    await source.read();
    text = fixture.replaceAll("9.663676416e+09", "2.147483648e+09");
    const second = await source.read();
    expect(second!.get(TRAIN)!.memory).toMatchObject({ currentBytes: 2147483648, peakBytes: 9663676416 });
  });

  it("reports itself unavailable once when the scrape fails, and answers again later", async () => {
    let status = 503;
    const said: string[] = [];
    const url = await serve(
      () => fixture,
      () => status,
    );
    const source = new CadvisorSource({ url, onUnavailable: (m) => said.push(m) });
    expect(await source.read()).toBeUndefined();
    expect(await source.read()).toBeUndefined();
    expect(source.status).toBe("unavailable");
    expect(said).toEqual([`cAdvisor scrape of ${url} failed: HTTP 503`]);
    status = 200;
    expect((await source.read())?.size).toBe(2);
    expect(source.status).toBe("running");
  });

  it("counts an endpoint serving no container metrics as unavailable", async () => {
    const said: string[] = [];
    const url = await serve(() => "# TYPE node_load1 gauge\nnode_load1 0.5\n");
    const source = new CadvisorSource({ url, onUnavailable: (m) => said.push(m) });
    expect(await source.read()).toBeUndefined();
    expect(said).toEqual([`${url} serves no cAdvisor container metrics`]);
  });

  it("gives up quickly on a port where nothing listens", async () => {
    const url = await serve(() => fixture);
    await new Promise((r) => server!.close(r));
    server = undefined;
    const source = new CadvisorSource({ url, timeoutMs: 2000 });
    expect(await source.read()).toBeUndefined();
    expect(source.status).toBe("unavailable");
  });
});

describe("cadvisorUsage", () => {
  const pod = "/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  const uid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  const ctr = (n: number) => `${pod}/${String(n).repeat(64)}`;

  it("sums a pod's containers when no pod-level rows are served, without per-CPU rows", () => {
    const text = [
      `container_cpu_usage_seconds_total{container="a",cpu="total",id="${ctr(1)}",namespace="ns",pod="p"} 10`,
      `container_cpu_usage_seconds_total{container="a",cpu="cpu00",id="${ctr(1)}",namespace="ns",pod="p"} 6`,
      `container_cpu_usage_seconds_total{container="b",cpu="total",id="${ctr(2)}",namespace="ns",pod="p"} 5`,
      `container_memory_working_set_bytes{container="a",id="${ctr(1)}",namespace="ns",pod="p"} 100`,
      `container_memory_working_set_bytes{container="b",id="${ctr(2)}",namespace="ns",pod="p"} 50`,
      `container_spec_memory_limit_bytes{container="a",id="${ctr(1)}",namespace="ns",pod="p"} 1000`,
      `container_spec_memory_limit_bytes{container="b",id="${ctr(2)}",namespace="ns",pod="p"} 0`,
      `container_memory_working_set_bytes{container="",id="/system.slice/kubelet.service",namespace="",pod=""} 7`,
    ].join("\n");
    const pods = cadvisorUsage(parsePrometheusText(text).samples);
    expect([...pods.keys()]).toEqual([uid]);
    // One container without a limit leaves the pod without one.
    expect(pods.get(uid)).toEqual({ memory: { currentBytes: 150 }, cpu: { usageSeconds: 15 } });
  });
});
