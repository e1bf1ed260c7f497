import { chmod, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CgroupTree } from "../../../../collector/src/test-support/cgroup-tree.js";
import { ProcTree } from "../../../../collector/src/test-support/proc-tree.js";
import { type ServerProcess, startServerProcess, stopProcess } from "../server-process.js";
import { AckRecorder } from "./ack-recorder.js";
import { type CollectorLogLine, CollectorProcess } from "./collector-process.js";
import { FakeSlurm } from "./fake-slurm.js";
import type { Episode } from "./fault-plan.js";
import { KillablePostgres } from "./killable-postgres.js";
import { openSpoolDisk, type SpoolDisk } from "./spool-disk.js";

export const CLUSTER = "faults";
const TOKEN = "collector-faults-token-000001";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A collection round that failed because the spool's disk was full (and so dropped its samples). */
export const isFullDiskRound = (l: CollectorLogLine) =>
  l.msg === "collection round failed" && l.error?.code === "SPOOL_FULL";

/** Options of {@link FaultStand.open}. */
export type FaultStandOptions = {
  /** Jobs running on the node (cgroups in the fixture tree). */
  nodeJobs: number;
};

/**
 * Everything the fault suite runs, each part real and killable: its own PostgreSQL, the server
 * process (tsx, as `jobsight-server serve`), a node collector reading a fixture cgroup tree and a
 * SLURM controller collector polling stand-in squeue/sacct, both the built `jobsight-collector`
 * with their spools on a disk the test fills, their clocks skewable, sending through a recorder
 * that keeps what the server acknowledged.
 */
export class FaultStand {
  server: ServerProcess | undefined;
  /** Server starts that failed (PostgreSQL down) and were retried, as a supervisor would. */
  serverStartFailures = 0;
  serverKills = 0;
  diskFills = 0;
  clockSteps = 0;
  /**
   * Drops the node collector had logged but not written to its spool state when it was last
   * killed: the counter of the next process would start without them. Zero, since the spool
   * writes the count before the failed round is reported.
   */
  forgottenDrops = 0;
  /** How far each collector's clock is from the true time, in milliseconds. */
  readonly clockOffsets = { node: 0, controller: 0 };

  private constructor(
    readonly work: string,
    readonly postgres: KillablePostgres,
    readonly recorder: AckRecorder,
    readonly disk: SpoolDisk,
    readonly tree: CgroupTree,
    readonly proc: ProcTree,
    readonly slurm: FakeSlurm,
    readonly node: CollectorProcess,
    readonly controller: CollectorProcess,
    private readonly serverArgs: string[],
    private readonly nodeJobs: number,
  ) {}

  /**
   * Samples the node collector dropped on a full disk, from its logs: each collection round that
   * failed with SPOOL_FULL dropped the routine sample of every job.
   */
  droppedByLogs(): number {
    return this.nodeJobs * this.node.logs.filter((l) => isFullDiskRound(l)).length;
  }

  static async open(options: FaultStandOptions): Promise<FaultStand> {
    const work = await mkdtemp(join(tmpdir(), "jobsight-faults-"));
    // As root, PostgreSQL runs as the postgres user, who must pass through this folder.
    await chmod(work, 0o711);
    // What is open so far, undone in reverse if a later part fails to start.
    const undo: (() => Promise<unknown>)[] = [() => rm(work, { recursive: true, force: true })];
    try {
      const postgres = await KillablePostgres.start(join(work, "postgres"));
      undo.unshift(() => postgres.stop());
      const recorder = await AckRecorder.start();
      undo.unshift(() => recorder.close());
      const disk = await openSpoolDisk();
      undo.unshift(() => disk.dispose());
      const tree = new CgroupTree();
      const proc = new ProcTree();
      undo.unshift(async () => {
        tree.cleanup();
        proc.cleanup();
      });
      for (let j = 0; j < options.nodeJobs; j++) tree.slurmJob(String(900 + j), { memoryPeak: 2 ** 30 + j });
      const slurm = new FakeSlurm(work);
      const config = join(work, "jobsight.json");
      await writeFile(
        config,
        JSON.stringify({
          dataDir: join(work, "server"),
          postgres: { url: postgres.url },
          http: { logLevel: "info" },
          rateLimit: { enabled: false },
          intelligence: { enabled: false },
          auth: { tokens: [{ token: TOKEN, role: "collector", user: "svc-collector", cluster: CLUSTER }] },
        }),
        // Holds secrets: the server refuses a config file others can read.
        { mode: 0o600 },
      );
      const common = ["--cluster", CLUSTER, "--interval", "1", "--url", recorder.url];
      const tail = ["--health-port", "0", "--log-level", "info"];
      const collector = (name: string, args: string[]) =>
        new CollectorProcess({
          args: [...common, ...args, "--spool-dir", join(disk.dir, name), ...tail],
          token: TOKEN,
          clockFile: join(work, `${name}.clock`),
          spoolDir: join(disk.dir, name),
          fullDiskFlag: disk.flagFile,
        });
      const node = collector("node", [
        ...["--node", "n1", "--cgroup-root", tree.root, "--cgroup-version", "v2", "--proc-root", proc.root],
        ...["--gpu", "off", "--kmsg", "false", "--batch-records", "7"],
      ]);
      const controller = collector("controller", [
        ...["--mode", "slurm-controller", "--squeue", slurm.squeue, "--sacct", slurm.sacct],
        ...["--batch-records", "3"],
      ]);
      const stand = new FaultStand(
        work,
        postgres,
        recorder,
        disk,
        tree,
        proc,
        slurm,
        node,
        controller,
        ["--config", config],
        options.nodeJobs,
      );
      undo.unshift(async () => {
        await Promise.all([node.kill(), controller.kill()]);
        if (stand.server) await stopProcess(stand.server.child, "SIGKILL");
      });
      await stand.setClock("node", 0);
      await stand.setClock("controller", 0);
      await stand.startServer();
      await Promise.all([node.start(), controller.start()]);
      return stand;
    } catch (error) {
      for (const step of undo) await step().catch(() => {});
      throw error;
    }
  }

  /** Start the server, retrying while it cannot (PostgreSQL down), as systemd's Restart= would. */
  async startServer(): Promise<void> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        this.server = await startServerProcess(this.serverArgs);
        this.recorder.upstream = this.server.url;
        return;
      } catch (error) {
        this.serverStartFailures++;
        if (Date.now() > deadline) throw error;
        await sleep(300);
      }
    }
  }

  async killServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.recorder.upstream = undefined;
    if (server) await stopProcess(server.child, "SIGKILL");
    this.serverKills++;
  }

  /** Set the clock of one collector `offsetMs` away from the true time (read within 100 ms). */
  async setClock(target: "node" | "controller", offsetMs: number): Promise<void> {
    const file = join(this.work, `${target}.clock`);
    await writeFile(`${file}.tmp`, String(offsetMs));
    await rename(`${file}.tmp`, file);
    this.clockOffsets[target] = offsetMs;
  }

  /** Inflict one fault and undo it when its time is up. */
  async run(e: Episode): Promise<void> {
    await sleep(e.atMs);
    switch (e.kind) {
      case "server":
        await this.killServer();
        await sleep(e.forMs);
        await this.startServer();
        return;
      case "postgres":
        await this.postgres.kill();
        await sleep(e.forMs);
        await this.postgres.restart();
        return;
      case "node":
        await this.node.kill();
        this.forgottenDrops = this.droppedByLogs() - (await this.node.persistedDrops());
        await sleep(e.forMs);
        await this.node.start();
        return;
      case "controller":
        await this.controller.kill();
        await sleep(e.forMs);
        await this.controller.start();
        return;
      case "disk":
        await this.disk.fill();
        this.diskFills++;
        await sleep(e.forMs);
        await this.disk.free();
        return;
      case "clock": {
        const { target, stepMs } = e.clock!;
        await this.setClock(target, stepMs === null ? 0 : this.clockOffsets[target] + stepMs);
        this.clockSteps++;
        return;
      }
    }
  }

  async close(): Promise<void> {
    const steps: (() => Promise<unknown>)[] = [
      () => this.node.stop(),
      () => this.controller.stop(),
      async () => this.server && stopProcess(this.server.child, "SIGKILL"),
      () => this.recorder.close(),
      () => this.postgres.stop(),
      () => this.disk.dispose(),
      async () => {
        this.tree.cleanup();
        this.proc.cleanup();
      },
      () => rm(this.work, { recursive: true, force: true }),
    ];
    // Every step runs even when one fails: a tmpfs left mounted or a process left running outlives the suite.
    const failures: unknown[] = [];
    for (const step of steps) await step().catch((error) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  }
}
