import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeCommand } from "../../test-support/fake-command.js";
import type { GpuUsage } from "../usage-parts.js";
import { parseGpuLost } from "./gpu-lost.js";
import { NvidiaSmi } from "./nvidia-smi.js";
import { gpuIdentity, parseComputeApps, parseGpuLine, shortPciBusId } from "./nvidia-smi-csv.js";

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

  it("reads the device minor that SLURM's GPU lists name, which need not be the index", () => {
    const line = "0, GPU-5f3c, 00000000:07:00.0, 0, 0, 81920, 61.2, 30, 2";
    expect(gpuIdentity(parseGpuLine(line) as GpuUsage, line)).toEqual({
      index: 0,
      uuid: "GPU-5f3c",
      pciBusId: "00000000:07:00.0",
      minor: 2,
    });
    const old = "0, GPU-5f3c, 00000000:07:00.0, 0, 0, 81920, 61.2, 30";
    expect(gpuIdentity(parseGpuLine(old) as GpuUsage, old)).not.toHaveProperty("minor");
  });

  it("recognises nvidia-smi's word that a GPU is lost, and only that", () => {
    expect(
      parseGpuLost(
        "Unable to determine the device handle for GPU 0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU",
      ),
    ).toEqual({ pciBusId: "0000:3B:00.0", reason: "GPU is lost.  Reboot the system to recover this GPU" });
    expect(
      parseGpuLost(
        "Unable to determine the device handle for GPU0000:07:00.0: GPU is lost. Reboot the system to recover this GPU",
      )?.pciBusId,
    ).toBe("0000:07:00.0");
    expect(
      parseGpuLost("Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"),
    ).toBeUndefined();
    expect(parseGpuLost("0, GPU-5f3c, 00000000:3B:00.0, 87, 30512, 40960, 245.67, 71")).toBeUndefined();
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

  // Prints two GPUs until the flag file appears, then what nvidia-smi says of a GPU that fell off
  // the bus (on stdout or stderr) and exits 15, NVML's "GPU is lost".
  const losingScript = (stream: "" | ">&2") => `
d="$(dirname "$0")"
echo start >> "$d/starts"
case "$*" in *--query-compute-apps*) exit 0 ;; esac
while :; do
  if [ -f "$d/lost" ]; then
    echo "Unable to determine the device handle for GPU 0000:5E:00.0: GPU is lost.  Reboot the system to recover this GPU" ${stream}
    exit 15
  fi
  echo "0, GPU-aaaa, 00000000:3B:00.0, 97, 30000, 40960, 300.5, 70, 1"
  echo "1, GPU-bbbb, 00000000:5E:00.0, 0, 0, 40960, 50.0, 30, 0"
  sleep 0.05
done`;

  for (const [where, stream] of [
    ["stdout", ""],
    ["stderr", ">&2"],
  ] as const) {
    it(`turns "GPU is lost" on ${where} and the exit status into one fault, and keeps the GPU's identity`, async () => {
      const fake = fakeCommand("nvidia-smi", losingScript(stream));
      const smi = new NvidiaSmi({
        command: fake.path,
        intervalMs: 1000,
        restartDelayMs: 20,
        unavailableRetryMs: 20,
      });
      cleanups.push(fake.cleanup, () => smi.stop());
      smi.start();
      await vi.waitFor(() => expect(smi.latest()).toHaveLength(2), { timeout: 5000 });
      expect(smi.takeFaults()).toEqual([]);
      writeFileSync(join(fake.dir, "lost"), "");
      // Restarted and failed again several times: still one fault.
      await vi.waitFor(
        () => expect(readFileSync(join(fake.dir, "starts"), "utf8").split("\n").length).toBeGreaterThan(4),
        { timeout: 5000 },
      );
      const faults = smi.takeFaults();
      expect(faults).toEqual([
        {
          pciBusId: "0000:5E:00.0",
          message:
            "Unable to determine the device handle for GPU 0000:5E:00.0: GPU is lost.  Reboot the system to recover this GPU",
          reason: "GPU is lost.  Reboot the system to recover this GPU",
          exitCode: 15,
          at: expect.any(Number),
        },
      ]);
      expect(smi.takeFaults()).toEqual([]);
      expect(smi.known()).toEqual([
        { index: 0, uuid: "GPU-aaaa", pciBusId: "00000000:3B:00.0", minor: 1 },
        { index: 1, uuid: "GPU-bbbb", pciBusId: "00000000:5E:00.0", minor: 0 },
      ]);
    });
  }

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
