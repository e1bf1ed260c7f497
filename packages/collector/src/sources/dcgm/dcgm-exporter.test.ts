import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parsePrometheusText } from "../prometheus/prometheus-text.js";
import { dcgmDevices } from "./dcgm-devices.js";
import { DcgmExporter } from "./dcgm-exporter.js";

const fixture = readFileSync(
  join(import.meta.dirname, "fixtures", "dcgm-exporter-mig-kubernetes.prom"),
  "utf8",
);
const MiB = 1024 * 1024;
const A100_0 = "GPU-34319582-d595-d1c7-d1d2-179bcfa61660";
const A100_1 = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";

let server: Server | undefined;
let exporter: DcgmExporter | undefined;
afterEach(async () => {
  await exporter?.stop();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = exporter = undefined;
});

/** A real HTTP server on 127.0.0.1 serving `body` on /metrics as dcgm-exporter does. */
async function serve(body: () => string, status = 200): Promise<string> {
  server = createServer((req, res) => {
    if (req.url !== "/metrics") return void res.writeHead(404).end();
    res.writeHead(status, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(body());
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe("dcgmDevices", () => {
  it("makes a whole GPU and each MIG instance a device of its own, with the pod DCGM maps it to", () => {
    const { devices, skipped } = dcgmDevices(parsePrometheusText(fixture).samples);
    expect(skipped).toEqual([]);
    expect(devices).toHaveLength(3);
    expect(devices[0]).toEqual({
      gpu: { index: 0, uuid: A100_0, pciBusId: "00000000:07:00.0", minor: 0 },
      pod: "ml/train-0",
      usage: {
        index: 0,
        uuid: A100_0,
        pciBusId: "00000000:07:00.0",
        utilizationPercent: 93,
        memoryUsedBytes: 31060 * MiB,
        memoryTotalBytes: (31060 + 9425) * MiB,
        powerWatts: 287.312,
        temperatureCelsius: 64,
      },
      smActivePercent: expect.closeTo(84.312, 6),
      tensorActivePercent: expect.closeTo(41.2006, 6),
    });
    const [mig2, mig13] = devices.slice(1);
    expect(mig2).toMatchObject({ mig: { id: 2, profile: "3g.20gb" }, usage: { utilizationPercent: 0 } });
    expect(mig2.pod).toBeUndefined();
    expect(mig13).toMatchObject({
      gpu: { index: 1, uuid: A100_1, minor: 1 },
      mig: { id: 13, profile: "1g.5gb" },
      pod: "ml/infer-1",
      usage: { index: 1, memoryUsedBytes: 2995 * MiB, memoryTotalBytes: (2995 + 1873) * MiB },
    });
    // GPU_UTIL is not reported per instance: the graphics engine's activity stands in.
    expect(mig13.usage.utilizationPercent).toBeCloseTo(99.5687, 4);
    // The instance's line carries the whole GPU's power draw, which is not the instance's.
    expect(mig13.usage).not.toHaveProperty("powerWatts");
  });

  it("skips a device without used memory and ignores DCGM's blank-value sentinels", () => {
    const text = [
      'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",device="nvidia0"} 5',
      'DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",device="nvidia1"} 7',
      'DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-b",device="nvidia1"} 10',
      'DCGM_FI_DEV_MEMORY_TEMP{gpu="1",UUID="GPU-b",device="nvidia1"} 9223372036854775794',
      'DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b",device="nvidia1"} 9223372036854775794',
    ].join("\n");
    const { devices, skipped } = dcgmDevices(parsePrometheusText(text).samples);
    expect(skipped).toEqual(["0"]);
    expect(devices.map((d) => d.usage)).toEqual([
      { index: 1, uuid: "GPU-b", utilizationPercent: 7, memoryUsedBytes: 10 * MiB },
    ]);
  });
});

describe("DcgmExporter", () => {
  it("scrapes a dcgm-exporter endpoint: whole GPUs in latest(), MIG instances by pod", async () => {
    const url = await serve(() => fixture);
    exporter = new DcgmExporter({ url, intervalMs: 60_000 });
    await exporter.scrape();
    expect(exporter.status).toBe("running");
    expect(exporter.latest().map((g) => g.uuid)).toEqual([A100_0]);
    expect(exporter.known().map((g) => g.uuid)).toEqual([A100_0, A100_1]);
    const pods = exporter.podDevices();
    expect([...pods.keys()].sort()).toEqual(["ml/infer-1", "ml/train-0"]);
    expect(pods.get("ml/infer-1")).toEqual([
      expect.objectContaining({ index: 1, memoryUsedBytes: 2995 * MiB }),
    ]);
    expect(await exporter.computeApps()).toEqual([]);
    expect(exporter.cannotSee).toContain("processes on each GPU");
    // Readings older than three intervals are not reported.
    expect(exporter.latest(Date.now() + 200_000)).toEqual([]);
  });

  it("says once that an endpoint with no DCGM readings or no server is unavailable, and never throws", async () => {
    const said: string[] = [];
    const url = await serve(() => "go_goroutines 12\n");
    exporter = new DcgmExporter({ url, onUnavailable: (m) => said.push(m) });
    await exporter.scrape();
    await exporter.scrape();
    expect(exporter.status).toBe("unavailable");
    expect(said).toEqual([`${url} serves no DCGM GPU readings`]);
    const closed = new DcgmExporter({
      url: "http://127.0.0.1:1/metrics",
      onUnavailable: (m) => said.push(m),
    });
    await closed.scrape();
    expect(closed.status).toBe("unavailable");
    expect(said[1]).toMatch(/^http:\/\/127\.0\.0\.1:1\/metrics: /);
  });

  it("keeps its last readings through a failed scrape once running, and polls on its own", async () => {
    let status = 200;
    const url = await serve(() => fixture);
    server!.removeAllListeners("request");
    let hits = 0;
    server!.on("request", (_req, res) => {
      hits++;
      res.writeHead(status).end(status === 200 ? fixture : "boom");
    });
    exporter = new DcgmExporter({ url, intervalMs: 50 });
    exporter.start();
    await expect.poll(() => exporter!.status).toBe("running");
    status = 500;
    const failedFrom = Date.now();
    const before = hits;
    await expect.poll(() => hits).toBeGreaterThan(before + 2);
    expect(exporter.status).toBe("running");
    // A failed scrape does not clear the readings; they only age out (three intervals).
    expect(exporter.latest(failedFrom)).not.toEqual([]);
    expect(exporter.latest(failedFrom + 1000)).toEqual([]);
  });
});
