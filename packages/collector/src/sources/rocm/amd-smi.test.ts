import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../config/load-config.js";
import { createLogger, silentLogger } from "../../log/logger.js";
import { assignGpus } from "../../modes/job-gpus.js";
import { fakeCommand } from "../../test-support/fake-command.js";
import { createGpuSource } from "../gpu/create-gpu-source.js";
import { podGpuRefs } from "../gpu/kubernetes-gpu-allocation.js";
import { ProcReader } from "../proc-reader.js";
import { AmdSmi } from "./amd-smi.js";
import { parseAmdSmiList, parseAmdSmiMetric } from "./amd-smi-json.js";

const fixtures = join(import.meta.dirname, "fixtures");
const fixture = (name: string) => join(fixtures, name);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A fake amd-smi that logs each call and prints the given metric and list outputs. */
function fakeAmdSmi(metricBody: string, listBody = `cat '${fixture("amd-smi-list-mi300x.json")}'`) {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-amd-smi-"));
  const calls = join(dir, "calls");
  const fake = fakeCommand(
    "amd-smi",
    [
      `echo "$*" >> '${calls}'`,
      'case "$*" in',
      `  "metric --usage --power --temperature --mem-usage --json") ${metricBody} ;;`,
      `  "list --json") ${listBody} ;;`,
      "  *) exit 3 ;;",
      "esac",
    ].join("\n"),
  );
  cleanups.push(fake.cleanup, () => rmSync(dir, { recursive: true, force: true }));
  const logged = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : []);
  return { path: fake.path, calls: logged };
}

function procRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-proc-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** What the parser makes of the MI300X fixtures, which amd-smi-json.test.ts pins value by value. */
const mi300x = parseAmdSmiMetric(
  readFileSync(fixture("amd-smi-metric-mi300x-gpu-data.json"), "utf8"),
  parseAmdSmiList(readFileSync(fixture("amd-smi-list-mi300x.json"), "utf8")),
).gpus.map((g) => g.usage);

describe("AmdSmi", () => {
  it("runs amd-smi metric each poll and amd-smi list once, and keeps the latest readings", async () => {
    const fake = fakeAmdSmi(`cat '${fixture("amd-smi-metric-mi300x-gpu-data.json")}'`);
    const smi = new AmdSmi({ command: fake.path, intervalMs: 60_000 });
    await smi.poll();
    await smi.poll();
    expect(fake.calls()).toEqual([
      "metric --usage --power --temperature --mem-usage --json",
      "list --json",
      "metric --usage --power --temperature --mem-usage --json",
    ]);
    expect(smi.status).toBe("running");
    expect(smi.latest()).toEqual(mi300x);
    expect(smi.known().map((g) => g.pciBusId)).toEqual(["0000:0c:00.0", "0000:22:00.0"]);
    expect(smi.skippedLines).toBe(2);
    expect(smi.cannotSee).toContain("processes on each GPU");
    await smi.stop();
  });

  it("gives a pod the amd.com/gpu the kubelet names by PCI address, as for rocm-smi", async () => {
    const fake = fakeAmdSmi(`cat '${fixture("amd-smi-metric-mi300x-gpu-data.json")}'`);
    const smi = new AmdSmi({ command: fake.path, intervalMs: 60_000 });
    await smi.poll();
    const refs = podGpuRefs([{ resourceName: "amd.com/gpu", deviceIds: ["0000:22:00.0"] }]);
    const { byJob, jobByPci } = assignGpus({
      readings: smi.latest(),
      apps: await smi.computeApps(),
      proc: new ProcReader({ root: procRoot() }),
      allocated: new Map([["pod-uid", refs]]),
      known: smi.known(),
    });
    expect(byJob.get("pod-uid")?.map((g) => g.index)).toEqual([1]);
    expect(jobByPci.get("0000:22:00")).toBe("pod-uid");
    await smi.stop();
  });

  it("keeps readings without PCI addresses when amd-smi list fails, and warns once", async () => {
    const lines: string[] = [];
    const fake = fakeAmdSmi(
      `cat '${fixture("amd-smi-metric-mi300x-gpu-data.json")}'`,
      "echo 'AMD-SMI Command list failed' >&2; exit 2",
    );
    const logger = createLogger({ level: "warn", write: (l) => lines.push(l) });
    const smi = new AmdSmi({ command: fake.path, intervalMs: 60_000, listRetryMs: 0, logger });
    await smi.poll();
    await smi.poll();
    expect(smi.status).toBe("running");
    expect(smi.latest().map((g) => [g.index, g.pciBusId])).toEqual([
      [0, undefined],
      [1, undefined],
    ]);
    expect(fake.calls().filter((c) => c === "list --json")).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      msg: "amd-smi list failed; GPUs go without PCI address, UUID or partition",
      reason: `${fake.path} failed (2): AMD-SMI Command list failed`,
    });
    await smi.stop();
  });

  it.each([
    ["prints no JSON", "echo 'Traceback (most recent call last):'", "printed no JSON: "],
    ["lists no GPU", "echo '[]'", "metric lists no GPU"],
    [
      "lists no GPU under gpu_data",
      `echo '{"cpu_data": [], "core_data": [], "gpu_data": []}'`,
      "metric lists no GPU",
    ],
    [
      "prints GPUs without readings",
      `echo '[{"gpu": 0, "usage": "N/A", "mem_usage": "N/A"}]'`,
      "reports no GPU with readings (gpu 0: usage.gfx_activity not available)",
    ],
    [
      "exits non-zero",
      "echo 'ERROR:root:Unable to detect any GPU devices' >&2; exit 1",
      "failed (1): ERROR:root:Unable",
    ],
  ])("says once that amd-smi is unavailable when it %s, and never throws", async (_what, body, said) => {
    const fake = fakeAmdSmi(body);
    const messages: string[] = [];
    const smi = new AmdSmi({ command: fake.path, onUnavailable: (m) => messages.push(m) });
    await expect(smi.poll()).resolves.toBeUndefined();
    await smi.poll();
    expect(smi.status).toBe("unavailable");
    expect(messages).toHaveLength(1);
    expect(messages[0].startsWith(fake.path)).toBe(true);
    expect(messages[0]).toContain(said);
    expect(smi.latest()).toEqual([]);
  });

  it("says a missing amd-smi is not found, and a hanging one timed out", async () => {
    const messages: string[] = [];
    const missing = new AmdSmi({ command: "/nonexistent/amd-smi", onUnavailable: (m) => messages.push(m) });
    await missing.poll();
    expect(messages).toEqual(["/nonexistent/amd-smi not found: no AMD GPU tools on this node"]);
    const fake = fakeAmdSmi("exec sleep 5");
    const hanging = new AmdSmi({
      command: fake.path,
      timeoutMs: 300,
      onUnavailable: (m) => messages.push(m),
    });
    await hanging.poll();
    expect(messages[1]).toBe(`${fake.path} failed (timed out after 300 ms)`);
  });

  it("is what --gpu-source amd-smi --amd-smi <path> builds", async () => {
    const fake = fakeAmdSmi(`cat '${fixture("amd-smi-metric-mi300x-gpu-data.json")}'`);
    const argv = ["--cluster", "hpc1", "--gpu-source", "amd-smi", "--amd-smi", fake.path];
    const config = loadConfig({ argv, env: {}, hostname: "n01" });
    expect(loadConfig({ argv: ["--cluster", "hpc1"], env: {}, hostname: "n01" }).gpu.amdSmi).toBe("amd-smi");
    const gpus = createGpuSource(config.gpu, {
      intervalMs: 60_000,
      logger: silentLogger,
      onUnavailable: () => {},
    });
    expect(gpus).toBeInstanceOf(AmdSmi);
    await (gpus as AmdSmi).poll();
    expect(gpus.latest().map((g) => g.index)).toEqual([0, 1]);
    await gpus.stop();
  });

  it("polls from start() until stop()", async () => {
    const fake = fakeAmdSmi(`cat '${fixture("amd-smi-metric-mi300x-gpu-data.json")}'`);
    const smi = new AmdSmi({ command: fake.path, intervalMs: 50 });
    smi.start();
    await expect
      .poll(() => fake.calls().filter((c) => c.startsWith("metric")).length)
      .toBeGreaterThanOrEqual(2);
    await smi.stop();
    expect(smi.status).toBe("stopped");
  });
});
