import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeCommand } from "../test-support/fake-command.js";
import { NvidiaSmi } from "./nvidia-smi.js";
import { parseComputeApps, parseGpuLine, shortPciBusId } from "./nvidia-smi-csv.js";

const fixtures = join(import.meta.dirname, "fixtures");
const queryGpu = join(fixtures, "nvidia-smi-query-gpu.csv");
const computeApps = join(fixtures, "nvidia-smi-compute-apps.csv");
const MiB = 1024 * 1024;

describe("nvidia-smi CSV", () => {
  it("parses a full --query-gpu line in MiB, W and °C", () => {
    expect(parseGpuLine("0, GPU-5f3c, 00000000:3B:00.0, 87, 30512, 40960, 245.67, 71")).toEqual({
      index: 0,
      uuid: "GPU-5f3c",
      pciBusId: "00000000:3B:00.0",
      utilizationPercent: 87,
      memoryUsedBytes: 30512 * MiB,
      memoryTotalBytes: 40960 * MiB,
      powerWatts: 245.67,
      temperatureCelsius: 71,
    });
  });

  it("leaves out [N/A] and [Not Supported] fields, and refuses a line without utilisation", () => {
    const lines = readFileSync(queryGpu, "utf8").trim().split("\n");
    const gpu2 = parseGpuLine(lines[2]);
    expect(gpu2).toMatchObject({ index: 2, utilizationPercent: 12, temperatureCelsius: 45 });
    expect(gpu2).not.toHaveProperty("powerWatts");
    expect(parseGpuLine(lines[3])).toEqual({ line: lines[3], reason: "utilization.gpu not available" });
    expect(
      parseGpuLine("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."),
    ).toHaveProperty("reason");
  });

  it("parses --query-compute-apps and skips non-rows", () => {
    const apps = parseComputeApps(`${readFileSync(computeApps, "utf8")}No running processes found\n`);
    expect(apps).toEqual([
      { pid: 4242, gpuUuid: "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69", usedMemoryBytes: 30500 * MiB },
      { pid: 4243, gpuUuid: "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69" },
      { pid: 5151, gpuUuid: "GPU-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e", usedMemoryBytes: 1020 * MiB },
    ]);
    expect(parseComputeApps("")).toEqual([]);
  });

  it("shortens the PCI bus id the way Xid lines print it", () => {
    expect(shortPciBusId("00000000:3B:00.0")).toBe("0000:3b:00");
    expect(shortPciBusId("PCI:0000:AF:00")).toBe("0000:af:00");
  });
});

describe("NvidiaSmi", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  // Loops like the real `-lms`: prints the recorded rows, sleeps the interval, and again.
  const smiScript = `
case "$*" in
  *--query-compute-apps*) cat "${computeApps}" ;;
  *--query-gpu*)
    ms=$(echo "$*" | sed -n 's/.*-lms \\([0-9]*\\).*/\\1/p')
    while :; do cat "${queryGpu}"; sleep $(awk "BEGIN{print $ms/1000}"); done ;;
esac`;

  it("keeps one child running and serves the latest reading of each GPU", async () => {
    const fake = fakeCommand("nvidia-smi", smiScript);
    const smi = new NvidiaSmi({ command: fake.path, intervalMs: 50 });
    cleanups.push(fake.cleanup, () => smi.stop());
    smi.start();
    await vi.waitFor(() => expect(smi.latest()).toHaveLength(3), { timeout: 5000 });
    expect(smi.status).toBe("running");
    expect(smi.latest().map((g) => g.index)).toEqual([0, 1, 2]);
    expect(smi.skippedLines).toBeGreaterThan(0);
    const apps = await smi.computeApps();
    expect(apps.map((a) => a.pid)).toEqual([4242, 4243, 5151]);
  });

  it("says once that nvidia-smi is missing and carries on", async () => {
    const onUnavailable = vi.fn();
    const smi = new NvidiaSmi({ command: "/nonexistent/nvidia-smi", onUnavailable, unavailableRetryMs: 20 });
    cleanups.push(() => smi.stop());
    smi.start();
    await vi.waitFor(() => expect(onUnavailable).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 120));
    expect(onUnavailable).toHaveBeenCalledTimes(1);
    expect(onUnavailable.mock.calls[0][0]).toMatch(/not found/);
    expect(smi.latest()).toEqual([]);
    expect(await smi.computeApps()).toEqual([]);
  });

  it("reports the driver's own message when nvidia-smi fails without a GPU", async () => {
    const fake = fakeCommand(
      "nvidia-smi",
      `echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."\nexit 9`,
    );
    const onUnavailable = vi.fn();
    const smi = new NvidiaSmi({ command: fake.path, onUnavailable });
    cleanups.push(fake.cleanup, () => smi.stop());
    smi.start();
    await vi.waitFor(() => expect(onUnavailable).toHaveBeenCalled());
    expect(onUnavailable.mock.calls[0][0]).toMatch(/couldn't communicate with the NVIDIA driver/);
    expect(smi.status).toBe("unavailable");
  });

  it("restarts a child that dies after it worked", async () => {
    const fake = fakeCommand(
      "nvidia-smi",
      `echo started >> "$(dirname "$0")/starts"\nhead -n 1 "${queryGpu}"\nexit 1`,
    );
    const smi = new NvidiaSmi({ command: fake.path, intervalMs: 1000, restartDelayMs: 20 });
    cleanups.push(fake.cleanup, () => smi.stop());
    smi.start();
    await vi.waitFor(() => expect(smi.latest()).toHaveLength(1));
    const first = smi.latest()[0];
    await vi.waitFor(() =>
      expect(readFileSync(join(fake.dir, "starts"), "utf8").split("\n").length).toBeGreaterThan(3),
    );
    expect(smi.status).not.toBe("unavailable");
    expect(smi.latest()[0]).toEqual(first);
  });
});
