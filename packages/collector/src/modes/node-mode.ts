import type { NodeEvent, UsageSample } from "@jobsight/schemas/light";
import { type Logger, silentLogger } from "../log/logger.js";
import { type CgroupSource, cgroupSource } from "../sources/cgroup-layout.js";
import type { CgroupUsage } from "../sources/cgroup-usage.js";
import { countJobThreads } from "../sources/job-threads.js";
import { kernelLogUnread, kernelLogUnreadEvent } from "../sources/kernel-log-unread.js";
import { notableProcesses, ProcJobAttribution, summariseProcesses } from "../sources/proc-job-attribution.js";
import type { SpoolKind } from "../spool/frame.js";
import { HeldRecords } from "../spool/held-records.js";
import { HeapTrim } from "../util/heap-trim.js";
import { ExclusiveNodeLoad, withoutInstantReadings } from "./instant-readings.js";
import { attributeXid, NodeGpus } from "./node-gpus.js";
import type { NodeModeOptions, NodeModeStats } from "./node-mode-options.js";
import { sanitiseSample } from "./sample-sanitiser.js";
import { addCadvisorPods, addNodeExporterUsage } from "./scraped-usage.js";

export type { NodeModeOptions, NodeModeStats } from "./node-mode-options.js";

type Tracked = { sample: UsageSample; finalised: boolean; dir?: string; kmsgUnreadSaid?: boolean };

/**
 * The node collector: every interval it discovers the running jobs, reads each job's cgroup (or,
 * without cgroups, sums its processes from /proc), adds notable processes and GPUs (and, for a job
 * alone on the node, the node's load from /proc/loadavg), drains the kernel log, and appends
 * everything to the spool in one durable write. A job whose cgroup disappeared gets one final
 * sample (`final: true`); the epilog hook can ask for that final reading at once. While the disk is full, events and final readings wait in memory for a later round and
 * routine samples are dropped and counted (`droppedSamples`). Rounds never throw into the host and
 * a round is skipped while the previous one runs.
 *
 * @example
 * ```ts
 * const mode = new NodeMode({ cluster: "hpc1", node: "n01", spool, proc: new ProcReader(), cgroupVersion: "v2" });
 * mode.start();
 * ```
 */
export class NodeMode {
  private readonly o: NodeModeOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly cgroups: CgroupSource | undefined;
  private readonly attribution: ProcJobAttribution | undefined;
  private readonly gpus: NodeGpus | undefined;
  private readonly load: ExclusiveNodeLoad;
  private readonly tracked = new Map<string, Tracked>();
  // Pods only cAdvisor saw: a failed scrape says nothing about whether they ended.
  private scrapedOnly = new Set<string>();
  private readonly queuedEvents: NodeEvent[] = [];
  private readonly heap: HeapTrim | undefined;
  private readonly out: HeldRecords;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly figures: NodeModeStats = {
    rounds: 0,
    skippedRounds: 0,
    failedRounds: 0,
    lastRoundAt: null,
    lastRoundMs: 0,
    jobs: 0,
    invalidSamples: 0,
    heapTrims: 0,
    heldRecords: 0,
  };

  constructor(options: NodeModeOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    // A routine sample is read again next round; events and final readings are not.
    this.out = new HeldRecords({
      spool: options.spool,
      redundant: (r) => r.kind === "usage" && !(r.value as UsageSample).final,
    });
    if (options.cgroupVersion !== "none") {
      this.cgroups = cgroupSource(options.cgroupVersion, options.cgroupRoot ?? "/sys/fs/cgroup");
    }
    if (options.trimHeap !== false) this.heap = new HeapTrim();
    this.load = new ExclusiveNodeLoad({ procRoot: options.proc.root, logger: this.log });
    const top = options.topProcesses ?? 5;
    // GPU allocations are read from the job's processes' environments, so GPUs need the scan too.
    if (options.cgroupVersion === "none" || top > 0 || options.gpus || options.progress) {
      this.attribution = new ProcJobAttribution({
        proc: options.proc,
        byCgroup: options.cgroupVersion !== "none",
      });
    }
    if (options.gpus) {
      this.gpus = new NodeGpus({
        cluster: options.cluster,
        node: options.node,
        smi: options.gpus,
        proc: options.proc,
        cgroupV1Root: options.cgroupVersion === "v1" ? (options.cgroupRoot ?? "/sys/fs/cgroup") : undefined,
        podResourcesSocket: options.podResourcesSocket,
        podLogsDir: options.podLogsDir,
        logger: this.log,
      });
    }
  }

  /** Report a source that cannot be read, as a `source_unavailable` event in the next round. */
  sourceUnavailable(source: string, message: string): void {
    this.queuedEvents.push({
      cluster: this.o.cluster,
      node: this.o.node,
      time: new Date(this.now()).toISOString(),
      kind: "source_unavailable",
      source,
      message: message.slice(0, 4096) || source,
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.collect(), this.o.intervalMs ?? 10_000);
    void this.collect();
  }

  /** Stop collecting, wait for a round in progress and release open files. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    this.cgroups?.reader.close();
    this.gpus?.close();
    this.o.proc.close();
  }

  /** Run one collection round now (skipped if one is running). Resolves, never rejects. */
  collect(): Promise<void> {
    if (this.running) {
      this.figures.skippedRounds++;
      return this.running;
    }
    const started = performance.now();
    this.running = this.round()
      .then(() => {
        this.figures.rounds++;
      })
      .catch((error) => {
        this.figures.failedRounds++;
        this.log.error("collection round failed", { error });
      })
      .finally(() => {
        this.figures.lastRoundMs = performance.now() - started;
        this.figures.lastRoundAt = new Date(this.now()).toISOString();
        this.running = undefined;
      });
    return this.running;
  }

  private async round(): Promise<void> {
    const time = new Date(this.now()).toISOString();
    const usage = new Map<string, { usage: CgroupUsage; node: string; dir?: string }>();
    const pods = new Set<string>();
    const scraped = await this.o.cadvisor?.read();
    if (this.cgroups) {
      for (const job of this.cgroups.discover()) {
        const u = scraped?.get(job.jobId) ?? this.cgroups.reader.read(job.dir);
        if (u) usage.set(job.jobId, { usage: u, node: job.nodePrefix ?? this.o.node, dir: job.dir });
        if (job.scheduler === "kubernetes") pods.add(job.jobId);
      }
    }
    const byJob = this.attribution?.scan();
    const pidJob = new Map<number, string>();
    if (byJob) {
      // forEach and index loops on the per-job and per-process paths: without the optimising
      // compiler (`--max-opt=1`) each for-of step and each destructured entry is an allocation.
      for (const [jobId, job] of byJob) {
        const ps = job.processes;
        for (let i = 0; i < ps.length; i++) pidJob.set(ps[i].pid, jobId);
        if (this.cgroups) continue;
        const totals = summariseProcesses(job, this.o.proc.pageSize);
        const prev = this.tracked.get(jobId)?.sample.memory?.peakBytes ?? 0;
        usage.set(jobId, {
          node: this.o.node,
          usage: {
            memory: { currentBytes: totals.rssBytes, peakBytes: Math.max(prev, totals.rssBytes) },
            cpu: { usageSeconds: totals.cpuSeconds },
            pids: totals.count,
          },
        });
      }
    }
    if (scraped) {
      this.scrapedOnly = new Set([...scraped.keys()].filter((uid) => !usage.get(uid)?.dir));
      addCadvisorPods(usage, scraped, this.o.node);
      for (const uid of scraped.keys()) pods.add(uid);
    }
    if (this.o.nodeExporter)
      await addNodeExporterUsage(usage, this.o.nodeExporter, this.cgroups !== undefined);
    const jobOf = (pid: number) => pidJob.get(pid);
    const dirs = new Map<string, string>();
    usage.forEach((u, jobId) => {
      if (u.dir) dirs.set(jobId, u.dir);
    });
    const gpus = await this.gpus?.assign(byJob, dirs, jobOf, pods);
    const progress = byJob && (await this.o.progress?.readAll(byJob));

    const records: { kind: SpoolKind; value: unknown }[] = [];
    const top = this.o.topProcesses ?? 5;
    // The node's load is the job's only while the job is alone on the node.
    const load = this.load.read(usage.size);
    usage.forEach(({ usage: u, node, dir }, jobId) => {
      const sample: UsageSample = { cluster: this.o.cluster, jobId, node, time, ...u };
      const g = gpus?.byJob.get(jobId);
      if (g) sample.gpus = g;
      const p = progress?.get(jobId);
      if (p) sample.progress = p;
      const procs = byJob?.get(jobId);
      // Threads and how many are runnable, beside the job's CPU counters: more runnable threads
      // than cores is oversubscription, whatever cgroup version or PSI the node has.
      if (procs && sample.cpu) sample.cpu = { ...sample.cpu, ...countJobThreads(procs, this.o.proc) };
      if (load && sample.cpu) sample.cpu = { ...sample.cpu, ...load };
      if (procs && top > 0) {
        const notable = notableProcesses(procs, this.o.proc, top);
        if (notable.length > 0) sample.processes = notable;
      }
      const previous = this.tracked.get(jobId);
      if (previous?.finalised) return;
      this.push(records, sample);
      if (previous) {
        previous.sample = sample;
        previous.dir = dir;
      } else this.tracked.set(jobId, { sample, finalised: false, dir });
    });
    // Jobs seen before and gone now: their last reading becomes the final one.
    this.tracked.forEach((t, jobId) => {
      if (usage.has(jobId) || (!scraped && this.scrapedOnly.has(jobId))) return;
      if (!t.finalised) this.push(records, { ...withoutInstantReadings(t.sample), time, final: true });
      if (t.dir) this.cgroups?.reader.forget(t.dir);
      this.tracked.delete(jobId);
    });

    const kernel = this.o.kernelLog?.drain() ?? [];
    const events = this.gpus?.events(kernel, jobOf) ?? kernel.map((e) => attributeXid(e, jobOf));
    for (const e of this.queuedEvents.splice(0)) records.push({ kind: "event", value: e });
    for (const e of events) records.push({ kind: "event", value: e });
    for (const e of this.o.sourceLimits?.events({ time, usage, scraped, gpus: gpus?.byJob }) ?? [])
      records.push({ kind: "event", value: e });
    // Said per job: a node-wide notice at start is outside the window of any later job's diagnosis.
    const unread = kernelLogUnread(this.o.kernelLog);
    if (unread) {
      this.tracked.forEach((t, jobId) => {
        if (t.kmsgUnreadSaid) return;
        t.kmsgUnreadSaid = true;
        const { cluster, node } = t.sample;
        records.push({
          kind: "event",
          value: kernelLogUnreadEvent({ cluster, node, jobId, time, reason: unread }),
        });
      });
    }
    this.figures.jobs = usage.size;
    await this.out.append(records);
    this.o.kernelLog?.saveState();
    // The round's garbage is dead now and nothing runs until the next tick: the cheapest moment.
    if (this.heap?.afterRound()) this.figures.heapTrims++;
  }

  private push(records: { kind: SpoolKind; value: unknown }[], sample: UsageSample): void {
    const dropped = sanitiseSample(sample);
    if (dropped > 0) {
      this.figures.invalidSamples++;
      this.log.debug("dropped fields the schema cannot take", { jobId: sample.jobId, dropped });
    }
    records.push({ kind: "usage", value: sample });
  }

  /**
   * Take the final reading of a job now (called from the SLURM epilog through the health port).
   * Returns false when the job is unknown to this collector.
   */
  async finalReading(jobId: string): Promise<boolean> {
    await this.running;
    const t = this.tracked.get(jobId);
    if (!t || t.finalised) return false;
    const time = new Date(this.now()).toISOString();
    let sample: UsageSample = { ...withoutInstantReadings(t.sample), time, final: true };
    const dir = this.cgroups?.discover().find((j) => j.jobId === jobId)?.dir;
    const fresh = dir ? this.cgroups!.reader.read(dir) : undefined;
    if (fresh) sample = { ...sample, ...fresh };
    const records: { kind: SpoolKind; value: unknown }[] = [];
    this.push(records, sample);
    await this.o.spool.append(records);
    t.finalised = true;
    t.sample = sample;
    return true;
  }

  stats(): NodeModeStats {
    return { ...this.figures, heldRecords: this.out.count };
  }
}
