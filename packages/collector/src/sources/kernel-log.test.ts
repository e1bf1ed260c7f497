import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateNodeEvent } from "@jobsight/schemas";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { KernelLog } from "./kernel-log.js";
import { parseKmsgRecord, parseOomKillSummary, parseXid } from "./kmsg-parse.js";

const fixture = join(import.meta.dirname, "fixtures", "kmsg-records.txt");
const BOOT = Date.parse("2026-12-01T00:00:00Z");

describe("kmsg parsing", () => {
  it("splits the record header and keeps device properties", () => {
    const r = parseKmsgRecord(
      "4,10418,90000000000,-;NVRM: Xid (PCI:0000:3b:00): 79, GPU\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n",
    )!;
    expect(r).toMatchObject({
      level: 4,
      facility: 0,
      sequence: 10418,
      timestampUs: 90_000_000_000,
      flags: "-",
    });
    expect(r.properties).toEqual({ SUBSYSTEM: "pci", DEVICE: "+pci:0000:3b:00.0" });
    expect(parseKmsgRecord("garbage")).toBeUndefined();
  });

  it("reads Xid lines of old and new drivers", () => {
    expect(
      parseXid("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus."),
    ).toEqual({
      code: 79,
      pciBusId: "0000:3b:00",
      pid: 1234,
      processName: "python",
      detail: "GPU has fallen off the bus.",
    });
    expect(
      parseXid(
        "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
      ),
    ).toEqual({
      code: 79,
      pciBusId: "0000:3b:00",
      detail: "GPU has fallen off the bus.",
    });
    expect(parseXid("NVRM: Xid (0000:86:00): 13, Graphics SM Warp Exception")?.code).toBe(13);
    expect(parseXid("NVRM: GPU at PCI:0000:3b:00: GPU-abc")).toBeUndefined();
  });

  it("reads the oom-kill summary", () => {
    expect(
      parseOomKillSummary(
        "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/user.slice,task=java,pid=777,uid=1001",
      ),
    ).toEqual({ pid: 777, task: "java", constraint: "CONSTRAINT_NONE", taskMemcg: "/user.slice" });
  });
});

describe("KernelLog", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-kmsg-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function open(path: string, extra: Partial<ConstructorParameters<typeof KernelLog>[0]> = {}) {
    return new KernelLog({ cluster: "hpc1", node: "gpu07", path, bootTimeMs: BOOT, bootId: "b-1", ...extra });
  }

  it("turns a recorded log into attributed OOM and Xid events that pass the schema", () => {
    const kmsg = open(fixture, {
      attribution: {
        jobForPid: (pid) => (pid === 52001 ? "5300" : undefined),
        jobForGpu: (bus) => (bus === "0000:3b:00" ? "4400" : undefined),
      },
    });
    const events = kmsg.drain();
    expect(events.map((e) => [e.kind, e.jobId])).toEqual([
      ["oom_kill", "4242"],
      ["gpu_xid", "4400"],
      ["gpu_xid", "5300"],
      ["gpu_xid", undefined],
      ["oom_kill", undefined],
    ]);
    expect(events[0].oomKill).toEqual({
      pid: 41234,
      processName: "python",
      memoryCgroup: "/system.slice/slurmstepd.scope/job_4242",
      taskCgroup: "/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0",
      constraint: "CONSTRAINT_MEMCG",
      totalVmBytes: 6_291_456 * 1024,
      anonRssBytes: 4_100_000 * 1024,
      fileRssBytes: 2048 * 1024,
      shmemRssBytes: 0,
    });
    expect(events[0].time).toBe(new Date(BOOT + 86_401_200_300 / 1000).toISOString());
    expect(events[0].idempotencyKey).toBe("kmsg:b1:10417");
    for (const e of events) expect(validateNodeEvent(e).ok).toBe(true);
    kmsg.close();
  });

  it("picks up records appended later, including a record split across reads", () => {
    const path = join(dir, "kmsg");
    copyFileSync(fixture, path);
    const kmsg = open(path);
    expect(kmsg.drain()).toHaveLength(5);
    appendFileSync(
      path,
      "4,10500,96000000000,-;NVRM: Xid (PCI:0000:3b:00): 48, pid=9, name=a, An uncorrectable",
    );
    expect(kmsg.drain()).toEqual([]);
    appendFileSync(path, " double bit error\n");
    const [e] = kmsg.drain();
    expect(e.xid?.code).toBe(48);
    expect(e.message).toContain("double bit error");
    kmsg.close();
  });

  it("does not report records again after a restart in the same boot, but does after a reboot", () => {
    const statePath = join(dir, "kmsg-state.json");
    const a = open(fixture, { statePath });
    expect(a.drain()).toHaveLength(5);
    a.saveState();
    a.close();
    expect(JSON.parse(readFileSync(statePath, "utf8")).lastSequence).toBe(10421);
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    const b = open(fixture, { statePath });
    expect(b.drain()).toEqual([]);
    b.close();
    const c = open(fixture, { statePath, bootId: "b-2" });
    expect(c.drain()).toHaveLength(5);
    c.close();
  });

  it("says once that the log cannot be read and returns nothing", () => {
    const onUnavailable = vi.fn();
    const kmsg = open(join(dir, "missing"), { onUnavailable });
    expect(kmsg.drain()).toEqual([]);
    expect(kmsg.drain()).toEqual([]);
    expect(onUnavailable).toHaveBeenCalledTimes(1);
    expect(kmsg.unavailable).toBe(true);
  });
});
