import { closeSync, constants, openSync, readFileSync, readSync, renameSync, writeFileSync } from "node:fs";
import { uptime } from "node:os";
import type { NodeEvent } from "@jobsight/schemas/light";
import { type Logger, silentLogger } from "../log/logger.js";
import { readBootTimeMs } from "./boot-time.js";
import { jobFromCgroupPath } from "./cgroup-job-path.js";
import {
  type KmsgRecord,
  type OomKillSummary,
  parseKmsgRecord,
  parseOomKilled,
  parseOomKillSummary,
  parseXid,
} from "./kmsg-parse.js";

/** How kernel-log events find their job when the line itself does not say. */
export type KernelLogAttribution = {
  /** The job a (possibly already dead) process belonged to. */
  jobForPid?(pid: number): string | undefined;
  /** The job using the GPU at this PCI address (`0000:3b:00`). */
  jobForGpu?(pciBusId: string): string | undefined;
};

/** Options of {@link KernelLog}. */
export type KernelLogOptions = {
  cluster: string;
  node: string;
  /** The kernel log device, or a file of records in its format. @default "/dev/kmsg" */
  path?: string;
  /**
   * Wall-clock time of boot in ms, to turn record timestamps (µs since boot) into times.
   * @default `btime` of `<procRoot>/stat`, read at each drain (else now minus the os uptime)
   */
  bootTimeMs?: number;
  /** The host's procfs, whose `stat` gives the boot time. @default "/proc" */
  procRoot?: string;
  /** Clock; no event is stamped later than the drain that read it. @default Date.now */
  now?: () => number;
  /** Identifies this boot; sequences restart at each boot. @default "unknown" */
  bootId?: string;
  /** File remembering the last record handled, so a restart does not report old events again. @default none */
  statePath?: string;
  attribution?: KernelLogAttribution;
  /** Called once when the log cannot be opened (no CAP_SYSLOG, dmesg_restrict). @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

type State = { bootId: string; lastSequence: number };

/**
 * Reads kernel log records from `/dev/kmsg` without blocking (each collection round drains what is
 * new) and turns NVIDIA Xid faults and OOM kills into {@link NodeEvent}s, attributed to jobs by the
 * cgroup the kernel names, else by process or GPU. Each event carries an idempotency key made of
 * the boot id and record sequence, so an event re-read after a crash is stored once.
 *
 * @example
 * ```ts
 * const kmsg = new KernelLog({ cluster: "hpc1", node: "gpu07", statePath: "/var/lib/jobsight/kmsg.json" });
 * const events = kmsg.drain(); // after spooling them:
 * kmsg.saveState();
 * ```
 */
export class KernelLog {
  private readonly options: KernelLogOptions;
  private readonly path: string;
  private readonly log: Logger;
  private readonly now: () => number;
  private futureSaid = false;
  private fd: number | undefined;
  private unavailableSaid = false;
  private failed: string | undefined;
  private pendingText = "";
  private state: State;
  private savedSequence: number;
  private readonly pendingSummaries = new Map<
    number,
    { summary: OomKillSummary; record: KmsgRecord; age: number }
  >();
  private readonly buf = Buffer.allocUnsafe(64 * 1024);
  /** Records the kernel overwrote before they were read (EPIPE). */
  lostRecords = 0;

  constructor(options: KernelLogOptions) {
    this.options = options;
    this.path = options.path ?? "/dev/kmsg";
    this.log = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    const bootId = options.bootId ?? "unknown";
    this.state = { bootId, lastSequence: -1 };
    if (options.statePath) {
      try {
        const saved = JSON.parse(readFileSync(options.statePath, "utf8")) as State;
        if (saved.bootId === bootId && Number.isFinite(saved.lastSequence))
          this.state.lastSequence = saved.lastSequence;
      } catch {
        // No state yet (first start) or unreadable: report from the start of the buffer.
      }
    }
    this.savedSequence = this.state.lastSequence;
  }

  /** True once the log could not be opened. */
  get unavailable(): boolean {
    return this.failed !== undefined;
  }

  /** Why the log could not be opened, once it could not. */
  get unavailableReason(): string | undefined {
    return this.failed;
  }

  private open(): boolean {
    if (this.fd !== undefined) return true;
    if (this.failed !== undefined) return false;
    try {
      this.fd = openSync(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
      return true;
    } catch (error) {
      const message = `cannot read the kernel log ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      this.failed = message;
      if (!this.unavailableSaid) {
        this.unavailableSaid = true;
        this.log.warn("kernel log unavailable; GPU faults and OOM kills will not be seen", {
          source: "kmsg",
          reason: message,
        });
        try {
          this.options.onUnavailable?.(message);
        } catch {
          // A faulty callback must not stop collection.
        }
      }
      return false;
    }
  }

  /** Read every record available now and return the events found in them. Never blocks or throws. */
  drain(): NodeEvent[] {
    if (!this.open()) return [];
    const records: KmsgRecord[] = [];
    for (;;) {
      let n: number;
      try {
        n = readSync(this.fd!, this.buf, 0, this.buf.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EPIPE") {
          // The ring buffer wrapped past us; the next read continues with the oldest record left.
          this.lostRecords++;
          continue;
        }
        if (code !== "EAGAIN") this.log.warn("kernel log read failed", { error });
        break;
      }
      if (n === 0) break;
      this.pendingText += this.buf.toString("utf8", 0, n);
    }
    const lastNewline = this.pendingText.lastIndexOf("\n");
    if (lastNewline < 0) return [];
    const complete = this.pendingText.slice(0, lastNewline + 1);
    this.pendingText = this.pendingText.slice(lastNewline + 1);
    let current = "";
    for (const line of complete.split("\n")) {
      if (line.startsWith(" ")) {
        current += `${line}\n`;
        continue;
      }
      if (current) this.collect(current, records);
      current = line ? `${line}\n` : "";
    }
    if (current) this.collect(current, records);
    // Most rounds find nothing new: /proc/stat is only read when there is a record to stamp.
    if (records.length === 0 && this.pendingSummaries.size === 0) return [];
    return this.toEvents(records, this.bootTime(), this.now());
  }

  // Per drain: the collector's own uptime can be a container's (lxcfs), and the clock may have been
  // stepped since start; either put events hours away from when they happened.
  private bootTime(): number {
    if (this.options.bootTimeMs !== undefined) return this.options.bootTimeMs;
    return readBootTimeMs(this.options.procRoot ?? "/proc") ?? Math.round(this.now() - uptime() * 1000);
  }

  private collect(text: string, out: KmsgRecord[]): void {
    const r = parseKmsgRecord(text);
    if (!r || r.sequence <= this.state.lastSequence) return;
    this.state.lastSequence = r.sequence;
    out.push(r);
  }

  private toEvents(records: KmsgRecord[], bootMs: number, readAt: number): NodeEvent[] {
    const events: NodeEvent[] = [];
    const event = (r: KmsgRecord, kind: NodeEvent["kind"]) => this.event(r, kind, bootMs, readAt);
    for (const r of records) {
      const xid = parseXid(r.message);
      if (xid) {
        const e = event(r, "gpu_xid");
        e.xid = xid;
        const jobId =
          (xid.pid ? this.options.attribution?.jobForPid?.(xid.pid) : undefined) ??
          this.options.attribution?.jobForGpu?.(xid.pciBusId);
        if (jobId) e.jobId = jobId;
        events.push(e);
        continue;
      }
      const summary = parseOomKillSummary(r.message);
      if (summary) {
        this.pendingSummaries.set(summary.pid, { summary, record: r, age: 0 });
        continue;
      }
      const killed = parseOomKilled(r.message);
      if (killed) {
        const pending = this.pendingSummaries.get(killed.pid);
        this.pendingSummaries.delete(killed.pid);
        events.push(this.oomEvent(event(r, "oom_kill"), killed, pending?.summary));
      }
    }
    // A summary whose "Killed process" line never came (rate-limited, lost) is still an OOM kill.
    for (const [pid, p] of this.pendingSummaries) {
      if (p.age++ < 1) continue;
      this.pendingSummaries.delete(pid);
      const e = event(p.record, "oom_kill");
      events.push(this.oomEvent(e, { pid, processName: p.summary.task ?? "?" }, p.summary));
    }
    return events;
  }

  private oomEvent(
    event: NodeEvent,
    details: NonNullable<NodeEvent["oomKill"]>,
    summary?: OomKillSummary,
  ): NodeEvent {
    const oom = { ...details };
    if (summary?.oomMemcg) oom.memoryCgroup = summary.oomMemcg.slice(0, 4096);
    if (summary?.taskMemcg) oom.taskCgroup = summary.taskMemcg.slice(0, 4096);
    if (summary?.constraint) oom.constraint = summary.constraint.slice(0, 64);
    event.oomKill = oom;
    const byCgroup =
      jobFromCgroupPath(summary?.taskMemcg ?? "") ?? jobFromCgroupPath(summary?.oomMemcg ?? "");
    const jobId = byCgroup?.jobId ?? this.options.attribution?.jobForPid?.(details.pid);
    if (jobId) event.jobId = jobId;
    return event;
  }

  private event(r: KmsgRecord, kind: NodeEvent["kind"], bootMs: number, readAt: number): NodeEvent {
    let at = bootMs + r.timestampUs / 1000;
    // A record cannot be newer than the read that found it; btime has a resolution of one second.
    if (at > readAt) {
      if (at > readAt + 2000 && !this.futureSaid) {
        this.futureSaid = true;
        this.log.warn("kernel-log record stamped in the future; using the time it was read", {
          bootTime: new Date(bootMs).toISOString(),
          aheadMs: Math.round(at - readAt),
        });
      }
      at = readAt;
    }
    const bootKey = this.state.bootId.replace(/[^A-Za-z0-9]/g, "").slice(0, 32) || "boot";
    return {
      cluster: this.options.cluster,
      node: this.options.node,
      time: new Date(at).toISOString(),
      kind,
      message: (r.message || "(empty)").slice(0, 4096),
      idempotencyKey: `kmsg:${bootKey}:${r.sequence}`.slice(0, 128),
    };
  }

  /** Remember the last record handled; call after the events were spooled. */
  saveState(): void {
    const path = this.options.statePath;
    if (!path || this.state.lastSequence === this.savedSequence) return;
    try {
      // Private like the spool it lives in; a new file replaces one an older version left open.
      writeFileSync(`${path}.tmp`, JSON.stringify(this.state), { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
      this.savedSequence = this.state.lastSequence;
    } catch (error) {
      this.log.warn("cannot save kernel-log position", { error });
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
