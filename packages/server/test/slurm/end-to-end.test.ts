// Real SLURM jobs through Jobsight's real pieces: the collector in controller mode (squeue/sacct)
// and in node mode (/proc) ships through its spool, shipper and OTLP sink to the server running
// in-process (REST API + OTLP/gRPC receiver over PostgreSQL), and the REST API then has to say
// what `sacct -P` says of each job, diagnose each failure for what it was, and refuse to predict
// what it has no evidence for.
import type { Diagnosis, Finding, JobRecord, Prediction, UsageSeries } from "@jobsight/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeSlurm,
  REFERENCE_JOBS,
  type ReferenceJobName,
  type SacctTruth,
  sacctTruth,
  slurmClient,
  slurmCluster,
  submitReferenceJobs,
  TERMINAL_STATES,
  waitForJob,
  waitForReferenceJobs,
} from "../../../../test/slurm/index.js";
import { poll } from "../../../../test/slurm/poll.js";
import type { TrainReport } from "../../src/intelligence/training/model-trainer.js";
import { type EndToEndJob, submitCopies } from "./end-to-end-jobs.js";
import { type InProcessServer, startInProcessServer } from "./in-process-server.js";
import { restApi } from "./rest-api.js";
import { type SlurmCollectors, startSlurmCollectors } from "./slurm-collectors.js";

const CLUSTER = "e2e-slurm";
const PLATFORM = "platform-e2e-slurm-token-0001";
const COLLECTOR = "collector-e2e-slurm-token-001";

describeSlurm("real SLURM jobs through the collector, the server and its REST API", () => {
  let server: InProcessServer;
  let collectors: SlurmCollectors | undefined;
  let jobs: EndToEndJob[];
  let truths: Map<string, SacctTruth>;
  const records = new Map<string, JobRecord>();
  const usage = new Map<string, UsageSeries>();
  const diagnoses = new Map<string, Diagnosis>();
  let shipped: { controller: number; node: number };

  const api = restApi(() => server.url, PLATFORM);

  const query = `cluster=${CLUSTER}`;
  const of = (kind: ReferenceJobName) => jobs.filter((job) => job.kind === kind);
  const label = (job: EndToEndJob) => `${job.own ? "copy of" : "reference"} ${job.kind} (${job.id})`;

  beforeAll(async () => {
    const reference = await submitReferenceJobs();
    server = await startInProcessServer({
      prefix: "e2e_slurm",
      cluster: CLUSTER,
      platformToken: PLATFORM,
      collectorToken: COLLECTOR,
    });
    // Ingest requires registered clusters by default: register it the way an operator does.
    await api("POST", "/v1/clusters", { id: CLUSTER, name: "Jobsight end-to-end", scheduler: "slurm" });
    collectors = await startSlurmCollectors({
      slurm: slurmCluster(),
      cluster: CLUSTER,
      restUrl: server.url,
      otlpUrl: server.otlpGrpcUrl,
      token: COLLECTOR,
    });
    const copies = await submitCopies();
    jobs = [
      ...REFERENCE_JOBS.map((spec) => ({ id: reference[spec.name].id, kind: spec.name, own: false, spec })),
      ...copies,
    ];
    await Promise.all([
      waitForReferenceJobs(),
      ...copies.map((job) => waitForJob(job.id, TERMINAL_STATES, 180_000)),
    ]);
    truths = await sacctTruth(
      slurmClient(),
      jobs.map((job) => job.id),
    );

    // Every job's end record reaches the server through the controller's next polls.
    await poll(
      async () => {
        for (const job of jobs) {
          if (records.get(job.id)?.outcome) continue;
          const record = await api<JobRecord>("GET", `/v1/jobs/${job.id}?${query}`).catch(() => undefined);
          if (record?.outcome) records.set(job.id, record);
          else return undefined;
        }
        return true;
      },
      { what: "every job's end record in the server", timeoutMs: 60_000, intervalMs: 250 },
    );
    // Two more node rounds after the last job ended: each gone job gets its final sample. Stopping
    // ships whatever is still spooled.
    const rounds = () => (collectors!.node.report().collector as { rounds: number }).rounds;
    const after = rounds() + 2;
    await poll(async () => (rounds() >= after ? true : undefined), {
      what: "two node collection rounds",
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const sent = (c: SlurmCollectors["node"]) => {
      const ship = c.report().shipper as { sentRecords: number; rejectedBatches: number };
      expect(ship.rejectedBatches).toBe(0);
      return ship.sentRecords;
    };
    await collectors.stop();
    shipped = { controller: sent(collectors.controller), node: sent(collectors.node) };
    collectors = undefined;

    for (const job of jobs) {
      records.set(job.id, await api<JobRecord>("GET", `/v1/jobs/${job.id}?${query}`));
      usage.set(job.id, await api<UsageSeries>("GET", `/v1/jobs/${job.id}/usage?${query}`));
      diagnoses.set(job.id, await api<Diagnosis>("GET", `/v1/jobs/${job.id}/diagnosis?${query}`));
    }
  }, 280_000);

  afterAll(async () => {
    await collectors?.stop();
    await server?.close();
  });

  it("stores each job with the state, exit code or signal, limit, elapsed time and peak memory sacct -P gives", () => {
    expect(shipped.controller).toBeGreaterThan(0);
    for (const job of jobs) {
      const truth = truths.get(job.id)!;
      const record = records.get(job.id)!;
      const what = label(job);
      expect(record.source, what).toBe("slurm-controller");
      expect(record.phase, what).toBe("ended");
      expect(record.nodes, what).toEqual([slurmCluster().node.name]);
      // Without the cgroup plugin SLURM says FAILED 0:9; Jobsight must call it what it was.
      expect(record.outcome?.state, what).toBe(job.kind === "overMemory" ? "OUT_OF_MEMORY" : truth.state);
      if (truth.signal !== undefined) expect(record.outcome?.signal, what).toBe(truth.signal);
      else expect(record.outcome?.exitCode, what).toBe(truth.exitCode);
      expect(record.spec.requested.walltimeSeconds, what).toBe(truth.walltimeSeconds);
      expect(record.spec.requested.walltimeSeconds, what).toBe(job.spec.request.timeMinutes * 60);
      expect(record.spec.requested.memoryBytes, what).toBe(truth.requestedMemoryBytes);
      expect(record.peaks?.runTimeSeconds, what).toBe(truth.elapsedSeconds);
      if (truth.maxRssBytes === undefined) expect(record.peaks?.memoryBytes, what).toBeUndefined();
      // sacct -P prints MaxRSS in KiB: the stored bytes agree to within that rounding.
      else expect(Math.abs(record.peaks!.memoryBytes! - truth.maxRssBytes), what).toBeLessThan(1024);
    }
    for (const job of of("exitsOne")) {
      const outcome = records.get(job.id)!.outcome;
      expect(outcome).toMatchObject({ exitCode: 1 });
      // Its --output=%x-%j.out, which 22.05's sacct does not record: the controller had it from squeue.
      expect(outcome?.stderrTail?.path, label(job)).toMatch(new RegExp(`-${job.id}\\.out$`));
      expect(outcome?.stderrTail?.text, label(job)).toContain("about to fail");
    }
    for (const job of of("overMemory")) {
      const record = records.get(job.id)!;
      expect(record.outcome).toMatchObject({ state: "OUT_OF_MEMORY", signal: 9 });
      expect(record.peaks!.memoryBytes!).toBeGreaterThan(record.spec.requested.memoryBytes!);
    }
    for (const job of of("timeout")) {
      const record = records.get(job.id)!;
      expect(record.outcome).toMatchObject({ state: "TIMEOUT", exitCode: 0 });
      expect(record.peaks!.runTimeSeconds!).toBeGreaterThanOrEqual(60);
    }
  });

  it("receives node-mode usage samples over OTLP for the jobs it watched, close to SLURM's MaxRSS", () => {
    expect(shipped.node).toBeGreaterThan(0);
    const own = jobs.filter((job) => job.own);
    for (const job of own) {
      const samples = usage.get(job.id)!.samples;
      const maxRss = truths.get(job.id)!.maxRssBytes;
      const what = `${label(job)}: ${samples.length} samples, MaxRSS ${maxRss}`;
      // The jobs that run for seconds are always seen; whether the 1 s sampler catches one that
      // lives for a second or less (exit 1, the memory kill) is a race with SLURM.
      if (job.kind === "completes" || job.kind === "healthyLong")
        expect(samples.length, what).toBeGreaterThanOrEqual(job.kind === "healthyLong" ? 10 : 3);
      if (samples.length === 0) continue;
      expect(
        samples.every((s) => s.node === slurmCluster().node.name),
        what,
      ).toBe(true);
      // The job's end is seen: its last sample is marked final.
      expect(samples.at(-1)?.final, what).toBe(true);
      const peak = Math.max(...samples.map((s) => s.memory?.peakBytes ?? 0));
      // Both sum the resident memory of the job's processes from /proc, sampled a second apart
      // at most: never well above what SLURM saw, and close to it for a job that holds its memory.
      // A few MB either way is which poll caught a short-lived child (the cancelled job's scancel).
      if (maxRss !== undefined)
        expect(peak, `${what}, sampled ${peak}`).toBeLessThan(1.25 * maxRss + 8 * 1024 * 1024);
      if (job.kind === "completes" || job.kind === "healthyLong")
        expect(peak / maxRss!, `${what}, sampled ${peak}`).toBeGreaterThan(0.8);
    }
    const healthy = own.find((job) => job.kind === "healthyLong")!;
    const last = usage.get(healthy.id)!.samples.at(-1)!;
    expect(last.memory!.peakBytes).toBeGreaterThan(100 * 1024 * 1024);
    expect(last.cpu!.usageSeconds).toBeGreaterThan(0);
  });

  it("diagnoses the over-memory job as an out-of-memory kill: signal 9, peak above the request", () => {
    for (const job of of("overMemory")) {
      const d = diagnoses.get(job.id)!;
      const request = records.get(job.id)!.spec.requested.memoryBytes!;
      expect(d.state, label(job)).toBe("OUT_OF_MEMORY");
      expect(d.causeDetermined).toBe(true);
      expect(failures(d).map((f) => f.kind)).toEqual(["oom_kill"]);
      const oom = d.findings[0];
      expect(oom.claim).toMatch(/^The job was killed for exceeding its memory/);
      const cited = (path: string) => oom.evidence.find((e) => e.kind === "scheduler" && e.metric === path);
      expect(cited("outcome.signal")?.values).toEqual([9]);
      expect(cited("peaks.memoryBytes")?.values?.[0]).toBeGreaterThan(request);
      // When the node collector sampled the job above its request, the diagnosis says who held it.
      const sampled = usage.get(job.id)!.samples.some((s) => (s.memory?.currentBytes ?? 0) > request);
      if (sampled)
        expect(oom.claim, label(job)).toMatch(/The largest process(es were| was) python3 \(pid \d+/);
    }
  });

  it("diagnoses the timeout with its one-minute limit", () => {
    for (const job of of("timeout")) {
      const d = diagnoses.get(job.id)!;
      expect(d.state, label(job)).toBe("TIMEOUT");
      expect(failures(d).map((f) => f.kind)).toEqual(["timeout"]);
      expect(d.findings[0].claim).toMatch(/walltime limit of 1 min\b/);
      const limit = d.findings[0].evidence.find(
        (e) => e.kind === "scheduler" && e.metric?.endsWith("walltimeSeconds"),
      );
      expect(limit?.values).toEqual([60]);
    }
  });

  it("diagnoses the exit-1 failure as the job's own, with its exit code", () => {
    for (const job of of("exitsOne")) {
      const d = diagnoses.get(job.id)!;
      expect(d.state, label(job)).toBe("FAILED");
      expect(failures(d).map((f) => f.kind)).toEqual(["job_error"]);
      expect(d.findings[0].claim).toMatch(/^The job's own program ended with exit code 1\b/);
    }
  });

  it("diagnoses the cancellation as a cancellation, not a failure of the job", () => {
    for (const job of of("cancelled")) {
      const d = diagnoses.get(job.id)!;
      expect(d.state, label(job)).toBe("CANCELLED");
      expect(failures(d).map((f) => f.kind)).toEqual(["cancelled"]);
      expect(d.findings[0].claim).toMatch(/^The job was cancelled after running .*did not fail on its own/);
    }
  });

  it("finds no failure in the healthy jobs", () => {
    for (const job of [...of("completes"), ...of("healthyLong")]) {
      const d = diagnoses.get(job.id)!;
      expect(d.state, label(job)).toBe("COMPLETED");
      expect(d.causeDetermined, label(job)).toBe(true);
      expect(failures(d), label(job)).toEqual([]);
    }
  });

  it("lists the kernel log as unseen for every job, since the node collector runs with --kmsg false", () => {
    for (const job of jobs) {
      const kernelLog = diagnoses.get(job.id)!.unseen.filter((u) => u.source === "kernel-log");
      expect(kernelLog, label(job)).toHaveLength(1);
      // A job the node collector sampled was told of itself; one it never saw (it ran before the
      // collector started) by another job's notice in its window, or by the node's silence.
      const sampled = usage.get(job.id)!.samples.length > 0;
      const told = "was not read (not watched: the collector runs with --kmsg false)";
      expect(kernelLog[0].reason, label(job)).toContain(sampled ? told : "was not read");
    }
  });

  it("recommends more memory than the memory job died with for its resubmission, and guesses nothing else", async () => {
    // The production training threshold: a dozen jobs are far too few to train a model on.
    const report: TrainReport = await server.service.train({ trigger: "e2e" });
    expect(report.trained, JSON.stringify(report)).toBe(false);
    expect(report.reason).toMatch(/no resource has enough completed jobs/);
    await server.service.refresh();
    for (const job of of("overMemory")) {
      const killed = records.get(job.id)!;
      // What it died with: SLURM's limit, or the peak seen before the accounting poll killed it.
      const diedWith = Math.max(killed.spec.requested.memoryBytes!, killed.peaks!.memoryBytes!);
      const prediction = await api<Prediction>("POST", "/v1/predictions", { spec: killed.spec });
      expect(prediction.mode).toBe("live");
      const memory = prediction.resources.find((r) => r.resource === "memory");
      expect(memory?.status, JSON.stringify(prediction)).toBe("ok");
      if (memory?.status !== "ok") continue;
      expect(memory.value, label(job)).toBeGreaterThan(diedWith);
      expect(memory.requested).toBe(killed.spec.requested.memoryBytes);
      expect(memory.evidence.features).toContain("recent_oom_kill");
      expect(memory.adjustments?.[0]).toMatchObject({ rule: "recent_oom", after: memory.value });
      // No model yet: every other resource says so instead of guessing (GPUs: none asked for).
      const reasons = Object.fromEntries(
        prediction.resources.filter((r) => r.status !== "ok").map((r) => [r.resource, r.reasonCode]),
      );
      expect(reasons, label(job)).toEqual({
        cores: "no_model",
        walltime: "no_model",
        gpus: "not_requested",
        gpuMemory: "not_requested",
      });
    }
    // A job of another application that asks as little as the memory job did gets no such advice.
    const memoryJob = records.get(of("overMemory")[0].id)!;
    const other = await api<Prediction>("POST", "/v1/predictions", {
      spec: { ...memoryJob.spec, executable: "/opt/other/analyse.sh", jobName: "analyse" },
    });
    expect(other.resources.every((r) => r.status === "insufficient_evidence")).toBe(true);
  });
});

/** The findings that explain a failure (severity error). */
function failures(d: Diagnosis): Finding[] {
  return d.findings.filter((f) => f.severity === "error");
}
