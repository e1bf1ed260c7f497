import { type Diagnosis, type NodeEvent, validators } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diagnosisScenarios } from "../../../src/intelligence/diagnosis/scenarios/all-scenarios.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  TOKENS,
  testApp,
  testService,
} from "./intelligence-fixture.js";

describe("a source's limits, ingested as a node event, named by the job's diagnosis", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  // Job 9310 on gpu06 (10:00 to 13:10), its GPU read through dcgm-exporter.
  const { record, samples } = structuredClone(
    diagnosisScenarios.find((s) => s.name === "healthy-gpu")!.input,
  );
  // As the node collector sends it the first round the job gets GPU readings, days after its own start.
  const limits: NodeEvent = {
    cluster: "hpc1",
    node: "gpu06",
    time: "2026-11-17T10:00:30.000Z",
    kind: "source_limits",
    jobId: record.jobId,
    source: "dcgm-exporter",
    sourceLimits: {
      reads: "gpu",
      cannotSee: ["processes on each GPU", "GPUs lost from the bus (nvidia-smi's view)"],
    },
    message: "dcgm-exporter cannot see: processes on each GPU; GPUs lost from the bus (nvidia-smi's view)",
    idempotencyKey: `source-limits:dcgm-exporter:gpu06:${record.jobId}`,
  };

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-source-limits", 0);
    service = testService(f);
    await service.start();
    app = await testApp(f, service);
    const post = (url: string, payload: object) =>
      app.inject({ method: "POST", url, headers: bearer(TOKENS.collector), payload });
    expect((await post("/v1/jobs", { records: [record] })).statusCode).toBe(200);
    expect((await post("/v1/usage", { idempotencyKey: "usage-9310", samples })).json()).toEqual({
      accepted: samples.length,
      duplicates: 0,
    });
    // A restarted collector says it again: stored once.
    expect((await post("/v1/events", { events: [limits] })).json()).toEqual({ accepted: 1, duplicates: 0 });
    expect((await post("/v1/events", { events: [limits] })).json()).toEqual({ accepted: 0, duplicates: 1 });
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  it("stores the event with what the source cannot see", async () => {
    const res = await app.inject({ url: "/v1/jobs/9310/events", headers: bearer(TOKENS.platform) });
    expect(res.statusCode).toBe(200);
    expect(res.json().events).toEqual([limits]);
  });

  it("names the source, the node and what it hides in the diagnosis, as JSON and as Markdown", async () => {
    const res = await app.inject({ url: "/v1/jobs/9310/diagnosis", headers: bearer(TOKENS.platform) });
    expect(res.statusCode).toBe(200);
    const d = res.json() as Diagnosis;
    expect(validators.Diagnosis.validate(d).ok).toBe(true);
    expect(d.unseen).toEqual([
      {
        source: "dcgm-exporter",
        reason:
          "The job's GPU readings on gpu06 came from dcgm-exporter, which cannot see processes on each GPU; GPUs lost from the bus (nvidia-smi's view). For this job: which of its processes used each GPU, and how much GPU memory each held, is unknown; a GPU that dropped out shows only as missing readings, unless the kernel log names its Xid.",
        window: { start: "2026-11-17T10:00:00Z", end: "2026-11-17T13:10:00Z" },
      },
    ]);
    const md = await app.inject({
      url: "/v1/jobs/9310/diagnosis",
      headers: { ...bearer(TOKENS.platform), accept: "text/markdown" },
    });
    expect(md.body).toContain("**dcgm-exporter**");
    expect(md.body).toContain("which of its processes used each GPU");
  });
});
