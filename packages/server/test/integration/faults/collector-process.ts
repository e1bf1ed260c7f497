import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
// The collector is a package the server may not depend on; the test reads its spool as it does.
import { DROP_COUNT_FILE, readDropCount } from "../../../../collector/src/spool/drop-count-file.js";

const SERVER_DIR = fileURLToPath(new URL("../../../", import.meta.url));
/** The built collector command, run as a site runs it. */
export const COLLECTOR_CLI = fileURLToPath(new URL("../../../../collector/dist/cli.js", import.meta.url));
const FULL_DISK_RUNNER = fileURLToPath(new URL("./full-disk-collector.ts", import.meta.url));
const CLOCK_SKEW = new URL("./clock-skew.mjs", import.meta.url).href;

/** A JSON log line of a collector. */
export type CollectorLogLine = { level: string; msg: string; error?: { code?: string; message?: string } };

/** Options of {@link CollectorProcess}. */
export type CollectorProcessOptions = {
  /** `jobsight-collector run` arguments. */
  args: string[];
  /** Bearer token (JOBSIGHT_TOKEN). */
  token: string;
  /** File holding the clock offset in milliseconds (see clock-skew.mjs). */
  clockFile: string;
  /** The spool directory given in `args`, whose state file the test reads after a kill. */
  spoolDir: string;
  /** Run with the injected full disk whose flag is this file, instead of the built CLI. @default the CLI */
  fullDiskFlag?: string;
};

/**
 * One collector, as a supervisor (systemd) keeps it: started, killed with SIGKILL, started again
 * on the same spool. Every log line of every incarnation is kept, in order.
 *
 * @example
 * ```ts
 * const node = new CollectorProcess({ args, token, clockFile });
 * await node.start();
 * await node.kill();
 * ```
 */
export class CollectorProcess {
  /** Log lines of all incarnations. */
  readonly logs: CollectorLogLine[] = [];
  /** Lines that were not JSON (crashes print stack traces). */
  readonly otherOutput: string[] = [];
  starts = 0;
  kills = 0;
  private child: ChildProcess | undefined;
  private port: number | undefined;

  constructor(private readonly options: CollectorProcessOptions) {
    if (!options.fullDiskFlag && !existsSync(COLLECTOR_CLI))
      throw new Error(`build the collector first (pnpm build): ${COLLECTOR_CLI} is missing`);
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Start and resolve once the health endpoint listens. */
  async start(): Promise<void> {
    if (this.child) throw new Error("collector already running");
    const o = this.options;
    const entry = o.fullDiskFlag ? ["--import", "tsx", FULL_DISK_RUNNER] : [COLLECTOR_CLI, "run"];
    const child = spawn(process.execPath, ["--import", CLOCK_SKEW, ...entry, ...o.args], {
      cwd: SERVER_DIR,
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        ...process.env,
        JOBSIGHT_TOKEN: o.token,
        JOBSIGHT_FAULTS_CLOCK_FILE: o.clockFile,
        JOBSIGHT_FAULTS_DISK_FLAG: o.fullDiskFlag ?? "",
      },
    });
    this.child = child;
    this.port = undefined;
    this.starts++;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    void exited.then(() => {
      if (this.child === child) this.child = undefined;
    });
    const listening = new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on("line", (line) => {
        let parsed: (CollectorLogLine & { port?: number }) | undefined;
        try {
          parsed = JSON.parse(line);
        } catch {
          this.otherOutput.push(line);
          return;
        }
        this.logs.push(parsed!);
        if (parsed!.msg === "health endpoint listening" && this.child === child) {
          this.port = parsed!.port;
          resolve();
        }
      });
      void exited.then(() => reject(new Error(`collector exited at start:\n${this.otherOutput.join("\n")}`)));
    });
    const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
    try {
      await listening;
    } finally {
      clearTimeout(timeout);
    }
  }

  /** SIGKILL, and wait until the process is gone and every line it wrote was read. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const gone = new Promise((resolve) => child.once("close", resolve));
    child.kill("SIGKILL");
    await gone;
    this.kills++;
  }

  /**
   * The drop counter on disk, as a process started now begins with it: the larger of the spool's
   * state file and its drop-count file (read by the collector's own reader).
   */
  async persistedDrops(): Promise<number> {
    const text = await readFile(join(this.options.spoolDir, "state.json"), "utf8").catch(() => "{}");
    const inState = (JSON.parse(text) as { droppedSamples?: number }).droppedSamples ?? 0;
    return Math.max(inState, await readDropCount(join(this.options.spoolDir, DROP_COUNT_FILE)));
  }

  /** A clean stop (SIGTERM), for the end of the suite. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await gone;
    clearTimeout(timer);
  }

  /** The collector's `GET /healthz` report. */
  async health(): Promise<CollectorHealth> {
    if (!this.port) throw new Error("collector not running");
    const res = await fetch(`http://127.0.0.1:${this.port}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return (await res.json()) as CollectorHealth;
  }
}

/** The parts of the collector's health report the test reads. */
export type CollectorHealth = {
  status: string;
  spool: {
    unacked: number;
    ackedSeq: number;
    lastSeq: number;
    droppedSamples: number;
    writeError: string | null;
    discardedBytes: number;
  };
  shipper: { rejectedRecords: number; consecutiveFailures: number; lastError: string | null } | null;
  collector: { rounds?: number; failedRounds?: number; heldRecords?: number; polls?: number } | null;
};
