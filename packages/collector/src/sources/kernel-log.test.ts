import {
  appendFileSync,
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateNodeEvent } from "@jobsight/schemas";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ProcTree } from "../test-support/proc-tree.js";
import { readBootTimeMs } from "./boot-time.js";
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

describe("KernelLog timestamps", () => {
  const DAY = 86_400_000;
  const NOW = Date.parse("2026-12-05T12:00:00Z");
  let dir: string;
  let proc: ProcTree;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-kmsg-"));
    proc = new ProcTree();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    proc.cleanup();
  });

  const oomAt = (seq: number, sinceBootMs: number) =>
    `3,${seq},${sinceBootMs * 1000},-;Memory cgroup out of memory: Killed process ${400 + seq} (python) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n`;

  function open(extra: Partial<ConstructorParameters<typeof KernelLog>[0]> = {}) {
    const path = join(dir, "kmsg");
    return new KernelLog({
      cluster: "hpc1",
      node: "gpu07",
      path,
      procRoot: proc.root,
      now: () => NOW,
      ...extra,
    });
  }

  it("stamps records with the host's boot time from <procRoot>/stat, days before the collector started", () => {
    // Booted 12 days ago; the OOM kill came 11 days 23 hours after boot, so one hour ago.
    proc.setBootTime(NOW - 12 * DAY, 96);
    writeFileSync(join(dir, "kmsg"), oomAt(7, 12 * DAY - 3_600_000));
    const [event] = open().drain();
    expect(event.kind).toBe("oom_kill");
    expect(event.time).toBe(new Date(NOW - 3_600_000).toISOString());
  });

  it("reads the boot time again at each drain, so a clock stepped after start is followed", () => {
    proc.setBootTime(NOW - 3 * DAY);
    const path = join(dir, "kmsg");
    writeFileSync(path, oomAt(1, 3 * DAY - 60_000));
    const kmsg = open();
    expect(kmsg.drain()[0].time).toBe(new Date(NOW - 60_000).toISOString());
    // NTP moved the clock back 14 hours: the kernel's btime moves with it.
    proc.setBootTime(NOW - 3 * DAY - 14 * 3_600_000);
    appendFileSync(path, oomAt(2, 3 * DAY - 30_000));
    expect(kmsg.drain()[0].time).toBe(new Date(NOW - 14 * 3_600_000 - 30_000).toISOString());
    kmsg.close();
  });

  it("never stamps an event later than the drain that read it", () => {
    // A boot time 14 hours too late (a container's own uptime) would put this record in the future.
    writeFileSync(join(dir, "kmsg"), oomAt(3, 20 * 3_600_000));
    const [event] = open({ bootTimeMs: NOW - 6 * 3_600_000 }).drain();
    expect(event.time).toBe(new Date(NOW).toISOString());
  });

  it("finds btime in a /proc/stat larger than one read, and says nothing when it is missing", () => {
    proc.setBootTime(Date.parse("2026-11-20T08:30:00Z"), 512);
    expect(statSync(join(proc.root, "stat")).size).toBeGreaterThan(64 * 1024);
    expect(readBootTimeMs(proc.root)).toBe(Date.parse("2026-11-20T08:30:00Z"));
    expect(readBootTimeMs(join(dir, "no-proc"))).toBeUndefined();
    writeFileSync(join(dir, "stat"), "cpu  1 2 3\nctxt 5\n");
    expect(readBootTimeMs(dir)).toBeUndefined();
  });
});
