import { type Diagnosis, type JobRecord, type UsageSample, validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEvidence } from "../../../src/intelligence/diagnosis/evidence-check.js";
import { diagnosisScenarios } from "../../../src/intelligence/diagnosis/scenarios/all-scenarios.js";
import type { DiagnosisScenario } from "../../../src/intelligence/diagnosis/scenarios/scenario.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

const scenario = (name: string): DiagnosisScenario => {
  const found = diagnosisScenarios.find((s) => s.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

describe("GET /v1/jobs/:id/diagnosis over what the data plane stored", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  const oom = scenario("oom-heap-leak");
  const timeout = scenario("timeout-with-history");
  const nodeLoad = scenario("cpu-oversubscribed-node-load");

  async function ingest(s: DiagnosisScenario, token: string): Promise<void> {
    const { record, samples, events, submission, logLines } = s.input;
    const jobs = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(token),
      payload: { records: [record] },
    });
    expect(jobs.statusCode).toBe(200);
    if (samples.length > 0) {
      const usage = await app.inject({
        method: "POST",
        url: "/v1/usage",
        headers: bearer(token),
        payload: { idempotencyKey: `usage-${record.jobId}`, samples },
      });
      expect(usage.json()).toEqual({ accepted: samples.length, duplicates: 0 });
    }
    if (events.length > 0) {
      const res = await app.inject({
        method: "POST",
        url: "/v1/events",
        headers: bearer(token),
        payload: { events },
      });
      expect(res.statusCode).toBe(200);
    }
    for (const [kind, text] of [
      ["script", submission],
      ["log", logLines?.map((l) => l.line).join("\n")],
    ] as const) {
      if (!text) continue;
      const put = await app.inject({
        method: "PUT",
        url: `/v1/artifacts?kind=${kind}&cluster=${record.cluster}&jobId=${record.jobId}`,
        headers: { ...bearer(token), "content-type": "text/plain" },
        payload: text,
      });
      expect(put.statusCode).toBe(201);
    }
  }

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-diagnosis", 0);
    service = testService(f);
    await service.start();
    app = await testApp(f, service);
    await ingest(oom, TOKENS.collector);
    await ingest(timeout, TOKENS.collector);
    await ingest(nodeLoad, TOKENS.collector);
    // Earlier completed runs of the same script: the run-time history the timeout rule weighs.
    const runs = timeout.input.history?.runTimesSeconds ?? [];
    const past: JobRecord[] = runs.map((seconds, i) => {
      const start = Date.parse("2026-11-01T00:00:00Z") + i * 86_400_000;
      return {
        ...timeout.input.record,
        jobId: `${timeout.input.record.jobId}-past-${i}`,
        submittedAt: new Date(start - 60_000).toISOString(),
        startedAt: new Date(start).toISOString(),
        endedAt: new Date(start + seconds * 1000).toISOString(),
        outcome: { state: "COMPLETED", exitCode: 0 },
        peaks: { runTimeSeconds: seconds },
        steps: undefined,
      };
    });
    const res = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer(TOKENS.collector),
      payload: { records: past },
    });
    expect(res.json().accepted).toBe(runs.length);
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  it("diagnoses an ingested OOM kill from the stored samples, events and submission (JSON)", async () => {
    const res = await app.inject({ url: "/v1/jobs/5101/diagnosis", headers: bearer(TOKENS.alice) });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    const d = res.json() as Diagnosis;
    expect(validators.Diagnosis.validate(d).ok).toBe(true);
    expect(d.findings.map((x) => x.kind)).toEqual(oom.expect.findings);
    expect(d.causeDetermined).toBe(true);
    for (const phrase of oom.expect.claims?.oom_kill ?? []) {
      expect(d.findings[0].claim).toContain(phrase as string);
    }
    // Every claim cites evidence that is really in what storage gave the diagnosis.
    const { record, samples, events } = oom.input;
    expect(
      checkEvidence(d, {
        record,
        samples,
        events,
        logLines: oom.input.logLines?.map((l) => ({ ...l, source: "job-log" })),
        sourcesSeen: {},
      }),
    ).toEqual([]);
    expect(d.agentPrompt).toContain("srun python embed_corpus.py");
  });

  it("answers Markdown when asked for it", async () => {
    const res = await app.inject({
      url: "/v1/jobs/5101/diagnosis",
      headers: { ...bearer(TOKENS.alice), accept: "text/markdown" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/markdown/);
    expect(res.body).toMatch(/^#/m);
    expect(res.body).toMatch(/memory/i);
  });

  it("weighs the stored run-time history of the same user and script for a timeout", async () => {
    const res = await app.inject({ url: "/v1/jobs/8120/diagnosis", headers: bearer(TOKENS.platform) });
    const d = res.json() as Diagnosis;
    expect(d.findings.map((x) => x.kind)).toEqual(["timeout"]);
    for (const phrase of timeout.expect.claims?.timeout ?? [])
      expect(d.findings[0].claim).toContain(phrase as string);
  });

  it("keeps a lone node's load through ingest and storage, and the oversubscription finding cites it", async () => {
    const { record, samples } = nodeLoad.input;
    const url = `/v1/jobs/${record.jobId}`;
    const series = (
      await app.inject({ url: `${url}/usage?cluster=hpc1`, headers: bearer(TOKENS.platform) })
    ).json();
    const stored = series.samples.filter((s: UsageSample) => !s.final);
    expect(stored.length).toBe(samples.length - 1);
    expect(stored.map((s: UsageSample) => s.cpu)).toEqual(samples.filter((s) => !s.final).map((s) => s.cpu));
    expect(stored[0].cpu).toMatchObject({ nodeRunnable: expect.any(Number), nodeLoad1: expect.any(Number) });

    const res = await app.inject({ url: `${url}/diagnosis?cluster=hpc1`, headers: bearer(TOKENS.platform) });
    expect(res.statusCode).toBe(200);
    const d = res.json() as Diagnosis;
    const f = d.findings.find((x) => x.kind === "cpu_oversubscribed")!;
    expect(f.claim).toContain("seen only through the node's load");
    const cited = f.evidence.find((e) => e.metric === "cpu.nodeRunnable")!;
    expect(cited).toMatchObject({ source: "proc:/proc/loadavg", node: record.nodes![0] });
    const values = new Set(stored.map((s: UsageSample) => s.cpu!.nodeRunnable));
    for (const v of cited.values ?? []) expect(values).toContain(v);
    expect(checkEvidence(d, { ...nodeLoad.input, sourcesSeen: {} })).toEqual([]);
  });

  it("shows a researcher only their own jobs, as getJob does", async () => {
    expect(
      (await app.inject({ url: "/v1/jobs/5101/diagnosis", headers: bearer(TOKENS.bob) })).statusCode,
    ).toBe(404);
    expect(
      (await app.inject({ url: "/v1/jobs/5101/diagnosis", headers: bearer(TOKENS.platformHpc2) })).statusCode,
    ).toBe(404);
    expect(
      (await app.inject({ url: "/v1/jobs/5101/diagnosis?cluster=hpc1", headers: bearer(TOKENS.platform) }))
        .statusCode,
    ).toBe(200);
    expect((await app.inject({ url: "/v1/jobs/5101/diagnosis" })).statusCode).toBe(401);
  });
});
