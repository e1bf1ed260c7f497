import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CgroupTree } from "../../../../collector/src/test-support/cgroup-tree.js";
import { CollectorProcess } from "./collector-process.js";
import { isFullDiskRound } from "./fault-stand.js";
import { openSpoolDisk, type SpoolDisk } from "./spool-disk.js";

// The fault suite's drop counter, pinned without randomness: a node collector with no backend
// (no shipper's operation writes its spool state) meets a full disk, logs a failed round, and is
// killed with SIGKILL at once. The counter of the next process must still count that round's
// samples: the spool writes the count (fsynced, like its records) before the failure is reported.

const JOBS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the node collector's drop counter across SIGKILL", () => {
  let work: string;
  let disk: SpoolDisk;
  let tree: CgroupTree;
  let collector: CollectorProcess;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "jobsight-drop-count-"));
    disk = await openSpoolDisk();
    tree = new CgroupTree();
    for (let j = 0; j < JOBS; j++) tree.slurmJob(String(300 + j));
    const clockFile = join(work, "clock");
    await writeFile(clockFile, "0");
    const spoolDir = join(disk.dir, "node");
    collector = new CollectorProcess({
      args: [
        ...["--cluster", "drops", "--node", "n1", "--interval", "1", "--cgroup-root", tree.root],
        ...["--cgroup-version", "v2", "--top-processes", "0", "--gpu", "off", "--kmsg", "false"],
        ...["--spool-dir", spoolDir, "--health-port", "0", "--log-level", "info"],
      ],
      token: "unused",
      clockFile,
      spoolDir,
      fullDiskFlag: disk.flagFile,
    });
  }, 60_000);

  afterAll(async () => {
    await collector?.kill();
    await disk?.dispose();
    tree?.cleanup();
    await rm(work, { recursive: true, force: true });
  });

  it("still counts the samples of a full-disk round logged just before the kill", async () => {
    await collector.start();
    await sleep(1_500);
    await disk.fill();
    const deadline = Date.now() + 20_000;
    while (collector.logs.filter(isFullDiskRound).length < 2) {
      if (Date.now() > deadline) throw new Error("no collection round met the full disk");
      await sleep(10);
    }
    await collector.kill();
    const logged = collector.logs.filter(isFullDiskRound).length * JOBS;
    await disk.free();
    await collector.start();
    const counter = (await collector.health()).spool.droppedSamples;
    console.log(`[faults] drop counter after SIGKILL: ${counter} of ${logged} dropped samples logged`);
    expect(counter).toBe(logged);
  }, 60_000);
});
