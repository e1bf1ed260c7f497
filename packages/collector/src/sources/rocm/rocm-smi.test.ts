import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assignGpus } from "../../modes/job-gpus.js";
import { fakeCommand } from "../../test-support/fake-command.js";
import { podGpuRefs } from "../gpu/kubernetes-gpu-allocation.js";
import { ProcReader } from "../proc-reader.js";
import { RocmSmi } from "./rocm-smi.js";
import { parseRocmSmiJson } from "./rocm-smi-json.js";

const fixture = join(import.meta.dirname, "fixtures", "rocm-smi-mi250x.json");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("parseRocmSmiJson", () => {
  it("reads each card's use, VRAM in bytes, power and edge temperature, skipping cards without use", () => {
    const { gpus, skipped } = parseRocmSmiJson(readFileSync(fixture, "utf8"));
    expect(gpus.map((g) => g.usage)).toEqual([
      {
        index: 0,
        pciBusId: "0000:C1:00.0",
        uuid: "0x62a3d5e1c0b1ef42",
        utilizationPercent: 97,
        memoryUsedBytes: 51539607552,
        memoryTotalBytes: 68702699520,
        powerWatts: 214,
        temperatureCelsius: 38,
      },
      {
        index: 1,
        pciBusId: "0000:C6:00.0",
        uuid: "0x8f06a3d5e1c0b1e5",
        utilizationPercent: 0,
        memoryUsedBytes: 11223040,
        memoryTotalBytes: 68702699520,
        temperatureCelsius: 36,
      },
    ]);
    expect(gpus[0].identity).toEqual({
      index: 0,
      minor: 0,
      pciBusId: "0000:C1:00.0",
      uuid: "0x62a3d5e1c0b1ef42",
    });
    expect(skipped).toEqual(["card2: GPU use (%) not available"]);
  });

  it("refuses output that is not a JSON object", () => {
    expect(() => parseRocmSmiJson("[]")).toThrow("rocm-smi --json printed no object");
    expect(() => parseRocmSmiJson("WARNING: No AMD GPUs specified")).toThrow(SyntaxError);
  });
});

describe("RocmSmi", () => {
  it("runs rocm-smi with its JSON arguments and keeps the latest readings", async () => {
    const fake = fakeCommand(
      "rocm-smi",
      `[ "$*" = "--showuse --showmeminfo vram --showpower --showtemp --showbus --showuniqueid --json" ] || exit 3\ncat '${fixture}'`,
    );
    cleanups.push(fake.cleanup);
    const smi = new RocmSmi({ command: fake.path, intervalMs: 60_000 });
    await smi.poll();
    expect(smi.status).toBe("running");
    expect(smi.latest().map((g) => g.index)).toEqual([0, 1]);
    expect(smi.known().map((g) => g.pciBusId)).toEqual(["0000:C1:00.0", "0000:C6:00.0"]);
    expect(smi.skippedLines).toBe(1);
    expect(smi.cannotSee).toContain("processes on each GPU");
    await smi.stop();
  });

  it("gives a pod the amd.com/gpu the device plugin allocated it by PCI address", async () => {
    const fake = fakeCommand("rocm-smi", `cat '${fixture}'`);
    cleanups.push(fake.cleanup);
    const proc = mkdtempSync(join(tmpdir(), "jobsight-proc-"));
    cleanups.push(() => rmSync(proc, { recursive: true, force: true }));
    const smi = new RocmSmi({ command: fake.path, intervalMs: 60_000 });
    await smi.poll();
    const { byJob } = assignGpus({
      readings: smi.latest(),
      apps: await smi.computeApps(),
      proc: new ProcReader({ root: proc }),
      allocated: new Map([
        ["pod-uid", podGpuRefs([{ resourceName: "amd.com/gpu", deviceIds: ["0000:c6:00.0"] }])],
      ]),
      known: smi.known(),
    });
    expect(byJob.get("pod-uid")?.map((g) => g.index)).toEqual([1]);
    await smi.stop();
  });

  it("says once that a missing or failing rocm-smi is unavailable, and never throws", async () => {
    const said: string[] = [];
    const missing = new RocmSmi({ command: "/nonexistent/rocm-smi", onUnavailable: (m) => said.push(m) });
    await missing.poll();
    await missing.poll();
    expect(missing.status).toBe("unavailable");
    expect(said).toEqual(["/nonexistent/rocm-smi not found: no AMD GPU tools on this node"]);
    const fake = fakeCommand(
      "rocm-smi",
      'echo "ERROR:root:Driver not initialized (amdgpu not found in modules)" >&2; exit 1',
    );
    cleanups.push(fake.cleanup);
    const broken = new RocmSmi({ command: fake.path, onUnavailable: (m) => said.push(m) });
    await broken.poll();
    expect(said[1]).toBe(
      `${fake.path} failed (1): ERROR:root:Driver not initialized (amdgpu not found in modules)`,
    );
  });
});
