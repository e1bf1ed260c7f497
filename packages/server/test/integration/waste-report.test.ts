import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compileValidator,
  type JobRecord,
  type ResourcePrediction,
  type UsageSample,
  WasteReport,
  type WasteRow,
} from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import { insertPredictionRows, predictionRows } from "../../src/data-plane/stores/prediction-store.js";
import { linkKeyOf } from "../../src/intelligence/recording/link-predictions.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";

const TOKENS = {
  collector: "collector-hpc1-waste-token-01",
  platform: "platform-waste-token-00000001",
};
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const START = Date.UTC(2026, 11, 2, 10);
const at = (second: number) => new Date(START + second * 1000).toISOString();
const RUN = 600;

/** An ended SLURM job of `user` that ran 10:00-10:10 and whose record says it used all it reserved. */
function ended(jobId: string, user: string, cores: number, gpus: number, gpuModel?: string): JobRecord {
  return {
    cluster: "hpc1",
    jobId,
    phase: "ended",
    source: "slurm-controller",
    spec: {
      cluster: "hpc1",
      scheduler: "slurm",
      user,
      account: `acct-${user}`,
      partition: gpus > 0 ? "gpu" : "batch",
      requested: {
        memoryBytes: 8 * 2 ** 30,
        cores,
        ...(gpus > 0 ? { gpus } : {}),
        ...(gpuModel ? { gpuModel } : {}),
        nodes: 1,
      },
    },
    submittedAt: at(-60),
    startedAt: at(0),
    endedAt: at(RUN),
    nodes: ["cn01"],
    outcome: { state: "COMPLETED", exitCode: 0 },
    // What sacct's averages claimed: every core and GPU busy. The samples say otherwise.
    peaks: {
      memoryBytes: 2 ** 30,
      runTimeSeconds: RUN,
      cpuTimeSeconds: cores * RUN,
      ...(gpus > 0 ? { gpusUsed: gpus } : {}),
    },
  };
}

/**
 * Whole-job samples every 30 s from 10:00:30 to 10:10:00 keeping `busyCores` busy, with two GPUs
 * (GPU 0 at 100%, GPU 1 idle) when `withGpus`, and the epilog's final reading 4 s after the end.
 */
function samples(jobId: string, busyCores: number, withGpus: boolean): UsageSample[] {
  const out: UsageSample[] = [];
  for (let second = 30; second <= RUN + 4; second += second === RUN ? 4 : 30) {
    out.push({
      cluster: "hpc1",
      jobId,
      node: "cn01",
      time: at(second),
      memory: { currentBytes: 2 ** 30 },
      cpu: { usageSeconds: busyCores * Math.min(second, RUN) },
      ...(withGpus
        ? {
            gpus: [
              { index: 0, utilizationPercent: 100, memoryUsedBytes: 2 ** 30 },
              { index: 1, utilizationPercent: 0, memoryUsedBytes: 0 },
            ],
          }
        : {}),
      ...(second > RUN ? { final: true } : {}),
    });
  }
  return out;
}

describe("GET /v1/reports/waste: idle cores and GPUs from the samples", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let priced: FastifyInstance;
  let objects: string;

  beforeAll(async () => {
    fx = await openTestStorage("waste_idle");
    objects = await mkdtemp(join(tmpdir(), "jobsight-waste-objects-"));
    const config = parseServerConfig({
      objectStore: { dir: objects },
      http: { logLevel: "silent" },
      auth: {
        tokens: [
          { token: TOKENS.collector, role: "collector", user: "svc-collector", cluster: "hpc1" },
          { token: TOKENS.platform, role: "platform", user: "ops" },
        ],
      },
    });
    app = await buildApp({ config, storage: fx.storage });
    const post = async (url: string, payload: Record<string, unknown>) => {
      const res = await app.inject({ method: "POST", url, headers: bearer(TOKENS.collector), payload });
      expect(res.statusCode, res.body).toBe(200);
    };
    await post("/v1/jobs", {
      records: [
        ended("7001", "carol", 8, 2), // 2 of 8 cores busy, one of its two GPUs busy
        ended("7002", "carol", 4, 0), // never sampled
        ended("7003", "dave", 16, 4, "A100"), // CPU sampled, no GPU readings (no nvidia-smi)
      ],
    });
    await post("/v1/usage", {
      idempotencyKey: "waste-idle-samples-1",
      samples: [...samples("7001", 2, true), ...samples("7003", 12, false)],
    });
    // The same jobs on a server of a site that set rates, and advice recorded for 7001's submission.
    priced = await buildApp({ config: { ...config, cost: RATES }, storage: fx.storage });
    const spec = ended("7001", "carol", 8, 2).spec;
    await insertPredictionRows(
      fx.storage.pool,
      predictionRows([
        {
          answer: {
            id: "waste-advice-1",
            createdAt: at(-120),
            mode: "live",
            modelVersion: "m-1",
            cluster: "hpc1",
            user: "carol",
            resources: [],
          },
          resources: [advised("memory", 2 * 2 ** 30), advised("cores", 2)],
          recommendations: [],
          spec,
          linkKey: linkKeyOf(spec),
          requestedBy: "carol",
        },
      ]),
    );
  });

  afterAll(async () => {
    await priced?.close();
    await app?.close();
    await fx?.dispose();
    await rm(objects, { recursive: true, force: true });
  });

  const report = async (query: string, server = app): Promise<WasteReport> => {
    const res = await server.inject({ url: `/v1/reports/waste?${query}`, headers: bearer(TOKENS.platform) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as WasteReport;
    expect(compileValidator(WasteReport).validate(body)).toMatchObject({ ok: true });
    return body;
  };
  const row = (r: WasteReport, key: string) => r.rows.find((x) => x.key === key) as WasteRow;

  it("reports reserved × sampled time − used as idle core-seconds and GPU-seconds per user", async () => {
    const carol = row(await report("by=user&cluster=hpc1"), "carol");
    // 7001: the samples span 10:00:30-10:10:00 (570 s) of the 600 s run; the final reading adds none.
    expect(carol.observedCoreSeconds).toBeCloseTo(8 * 570, 6);
    expect(carol.idleCoreSeconds).toBeCloseTo(8 * 570 - 2 * 570, 6);
    expect(carol.observedGpuSeconds).toBeCloseTo(2 * 570, 6);
    expect(carol.idleGpuSeconds).toBeCloseTo(2 * 570 - 570, 6);
    // The record's own figures say nothing was wasted; the samples are what show it.
    expect(carol.coreSecondsRequested - carol.coreSecondsUsed).toBe(0);
  });

  it("says where it lacks samples: unobserved time and jobs without CPU or GPU samples", async () => {
    const r = await report("by=user&cluster=hpc1");
    const carol = row(r, "carol");
    // 7001's first 30 s, and all of 7002's 4 cores × 600 s.
    expect(carol.unobservedCoreSeconds).toBeCloseTo(8 * 30 + 4 * RUN, 6);
    expect(carol.unobservedGpuSeconds).toBeCloseTo(2 * 30, 6);
    expect(carol.jobsWithoutCpuSamples).toBe(1);
    expect(carol.jobsWithoutGpuSamples).toBe(0);
    const dave = row(r, "dave");
    expect(dave.idleCoreSeconds).toBeCloseTo(16 * 570 - 12 * 570, 6);
    expect(dave.jobsWithoutGpuSamples).toBe(1);
    expect(dave.idleGpuSeconds).toBe(0);
    expect(dave.observedGpuSeconds).toBe(0);
    expect(dave.unobservedGpuSeconds).toBeCloseTo(4 * RUN, 6);
  });

  it("names each group's most idle jobs, GPUs first, and leaves out jobs with nothing measured idle", async () => {
    const carol = row(await report("by=account"), "acct-carol");
    expect(carol.idleJobs).toEqual([
      {
        cluster: "hpc1",
        jobId: "7001",
        runSeconds: RUN,
        idleCoreSeconds: expect.closeTo(6 * 570, 6),
        observedCoreSeconds: expect.closeTo(8 * 570, 6),
        unobservedCoreSeconds: expect.closeTo(8 * 30, 6),
        idleGpuSeconds: expect.closeTo(570, 6),
        observedGpuSeconds: expect.closeTo(2 * 570, 6),
        unobservedGpuSeconds: expect.closeTo(2 * 30, 6),
      },
    ]);
  });

  it("shows amounts only, and no savings, until asked and priced", async () => {
    const r = await report("by=user&savings=true&to=2026-12-03T00:00:00Z");
    expect(r.rates).toBeUndefined();
    expect(r.rows.every((x) => x.cost === undefined)).toBe(true);
    expect(r.savings).toMatchObject({ jobs: 3, jobsWithAdvice: 2, memoryGibHours: expect.closeTo(2, 9) });
    expect(r.savings?.cost).toBeUndefined();
    expect(row(r, "dave").gpuTypes).toEqual([
      { type: "a100", gpuSecondsRequested: 4 * RUN, gpuSecondsUsed: 4 * RUN },
    ]);
  });

  it("prices unused and sampled idle hours at the site's rates, GPUs by the type requested", async () => {
    const r = await report("by=user", priced);
    expect(r.rates).toEqual(RATES);
    expect(r.savings).toBeUndefined();
    // Carol: 2 jobs × 7 GiB × 10 min unused; 6 cores × 570 s and one GPU × 570 s idle by the samples.
    expect(row(r, "carol").cost).toEqual({
      unused: { cores: 0, memory: 0.14, gpus: 0, total: 0.14 },
      idle: { cores: 0.38, gpus: 0.32, total: 0.7 },
    });
    // Dave's A100s at their own rate: all used by the record, and no GPU readings to see them idle.
    expect(row(r, "dave").cost?.unused.gpus).toBe(0);
    expect(row(r, "dave").cost?.idle).toEqual({ cores: 0.25, total: 0.25 });
  });

  it("adds what the recorded advice would have saved over the 30 days before `to`, in money", async () => {
    const r = await report("by=account&savings=true&to=2026-12-03T00:00:00Z", priced);
    // Carol's two jobs share a submission key, so both had the advice: each asked for 8 GiB, peaked
    // at 1 GiB and was advised 2 GiB (6 GiB × 10 min saved each). Cores: they used all they had.
    expect(r.savings).toEqual({
      from: "2026-11-03T00:00:00.000Z",
      to: "2026-12-03T00:00:00.000Z",
      jobs: 3,
      jobsWithAdvice: 2,
      truncated: false,
      coreHours: 0,
      memoryGibHours: expect.closeTo(2, 9),
      gpuHours: 0,
      cost: { cores: 0, memory: 0.12, gpus: 0, total: 0.12 },
    });
  });
});

const RATES = { currency: "EUR", coreHour: 0.4, memoryGibHour: 0.06, gpuHour: 2, gpuHourByType: { a100: 3 } };

function advised(resource: "memory" | "cores", value: number): ResourcePrediction {
  return {
    resource,
    status: "ok",
    unit: resource === "memory" ? "bytes" : "cores",
    value,
    low: value / 2,
    high: value,
    nominalLevel: 0.9,
    confidence: 0.9,
    evidence: { group: "user=carol", jobs: 40 },
  };
}
