import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExporterSource } from "../../src/sources/prometheus/node-exporter.js";
import { type NodeExporterServer, startNodeExporter } from "./support/node-exporter-server.js";

// The real Debian node_exporter against this machine's /proc: the collectors the source reads only.
let exporter: NodeExporterServer;
beforeAll(async () => {
  exporter = await startNodeExporter(["cpu", "meminfo", "loadavg", "pressure"]);
});
afterAll(async () => {
  await exporter?.stop();
});

const meminfo = (key: string) => {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(readFileSync("/proc/meminfo", "utf8"));
  if (!m) throw new Error(`no ${key} in /proc/meminfo`);
  return Number(m[1]) * 1024;
};
// Busy CPU seconds from /proc/stat's first line (USER_HZ = 100): every field but idle and iowait.
const busySeconds = () => {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f;
  return (user + nice + system + irq + softirq + steal) / 100;
};
const cpuLines = () => readFileSync("/proc/stat", "utf8").match(/^cpu\d+ /gm)?.length ?? 1;
const load1 = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
const cpuWaiting = () => {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1]) / 1e6;
  } catch {
    return undefined;
  }
};

describe("NodeExporterSource against Debian's prometheus-node-exporter", () => {
  it("reads the node's memory, busy CPU, CPU pressure and load as /proc has them", async () => {
    const source = new NodeExporterSource({ url: exporter.url });
    const before = { busy: busySeconds(), load: load1(), waiting: cpuWaiting() };
    const usedBefore = meminfo("MemTotal") - meminfo("MemAvailable");
    const r = await source.read();
    const after = { busy: busySeconds(), load: load1(), waiting: cpuWaiting() };
    const usedAfter = meminfo("MemTotal") - meminfo("MemAvailable");
    expect(source.status).toBe("running");
    expect(r).toBeDefined();
    expect(r!.memoryTotalBytes).toBe(meminfo("MemTotal"));
    // Memory moves on a shared machine: within 2% of the total of what /proc said around the scrape.
    const slack = 0.02 * meminfo("MemTotal");
    expect(r!.memoryUsedBytes).toBeGreaterThanOrEqual(Math.min(usedBefore, usedAfter) - slack);
    expect(r!.memoryUsedBytes).toBeLessThanOrEqual(Math.max(usedBefore, usedAfter) + slack);
    // Counters only grow: the scrape's reading lies between the readings taken around it (node_exporter
    // sums the per-CPU lines, each rounded to a tick, where /proc/stat's first line is one sum).
    const ticks = 0.01 * (cpuLines() + 1);
    expect(r!.cpuSeconds).toBeGreaterThanOrEqual(before.busy - ticks);
    expect(r!.cpuSeconds).toBeLessThanOrEqual(after.busy + ticks);
    expect(r!.load1).toBeGreaterThanOrEqual(Math.min(before.load, after.load) - 0.5);
    expect(r!.load1).toBeLessThanOrEqual(Math.max(before.load, after.load) + 0.5);
    if (before.waiting !== undefined && after.waiting !== undefined) {
      expect(r!.cpuWaitingSeconds).toBeGreaterThanOrEqual(before.waiting - 1e-6);
      expect(r!.cpuWaitingSeconds).toBeLessThanOrEqual(after.waiting + 1e-6);
    } else expect(r!.cpuWaitingSeconds).toBeUndefined();
  });

  it("gives the job alone on the node the CPU time the node spent busy since it was first seen", async () => {
    const source = new NodeExporterSource({ url: exporter.url });
    const first = await source.exclusiveJobUsage("4242");
    expect(first!.cpu).toMatchObject({ usageSeconds: 0 });
    expect(first!.memory!.currentBytes).toBeGreaterThan(0);
    expect(first!.memory!.currentBytes).toBeLessThan(meminfo("MemTotal"));
    const started = Date.now();
    // Burn CPU for half a second so the node is busy between the two scrapes.
    while (Date.now() - started < 500);
    await new Promise((r) => setTimeout(r, 50));
    const second = await source.exclusiveJobUsage("4242");
    const elapsed = (Date.now() - started) / 1000 + 0.2;
    expect(second!.cpu!.usageSeconds).toBeGreaterThan(0.3);
    expect(second!.cpu!.usageSeconds).toBeLessThanOrEqual(elapsed * availableParallelism());
    expect(second!.memory!.peakBytes).toBeGreaterThanOrEqual(second!.memory!.currentBytes);
    if (cpuWaiting() !== undefined) {
      expect(second!.pressure!.cpuSome).toBeGreaterThanOrEqual(0);
      expect(second!.pressure!.cpuSome).toBeLessThanOrEqual(100);
    }
    // Another job alone on the node counts from its own start, not from the first one's.
    const next = await source.exclusiveJobUsage("4243");
    expect(next!.cpu!.usageSeconds).toBe(0);
  });

  it("reports itself unavailable once when the exporter stops answering", async () => {
    const own = await startNodeExporter(["loadavg", "meminfo"]);
    const said: string[] = [];
    const source = new NodeExporterSource({ url: own.url, onUnavailable: (m) => said.push(m) });
    expect(await source.read()).toMatchObject({ load1: expect.any(Number) });
    await own.stop();
    expect(await source.exclusiveJobUsage("1")).toBeUndefined();
    expect(await source.read()).toBeUndefined();
    expect(source.status).toBe("unavailable");
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`node_exporter scrape of ${own.url} failed`);
  });
});
