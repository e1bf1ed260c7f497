import type { Diagnosis, JobRecord } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEvidence } from "../../../src/intelligence/diagnosis/evidence-check.js";
import type { DiagnosisInput } from "../../../src/intelligence/diagnosis/input.js";
import { diagnosisScenarios } from "../../../src/intelligence/diagnosis/scenarios/all-scenarios.js";
import type { DiagnosisScenario } from "../../../src/intelligence/diagnosis/scenarios/scenario.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import { collectorPrincipal, collectorToken, PRINCIPALS } from "../test-server-config.js";
import {
  bearer,
  type IntelligenceFixture,
  openIntelligenceFixture,
  testApp,
  testService,
} from "./intelligence-fixture.js";

// Every scenario of the diagnosis suite, sent the way collectors send them (job records, usage
// samples, node events, artifacts over the REST API), stored in PostgreSQL and the object store,
// and diagnosed from what storage gives back: the whole path, not the pure function.

const PLATFORM = PRINCIPALS.platform.token;

/** Scenarios sharing a job id (variants of one job) get distinct ids so each is stored apart. */
function distinctJobs(scenarios: readonly DiagnosisScenario[]): DiagnosisScenario[] {
  const seen = new Set<string>();
  return scenarios.map((s, i) => {
    const { cluster, jobId } = s.input.record;
    const key = `${cluster}/${jobId}`;
    if (!seen.has(key)) {
      seen.add(key);
      return s;
    }
    return { ...s, input: renameJob(s.input, `${jobId}-v${i}`) };
  });
}

function renameJob(input: DiagnosisInput, jobId: string): DiagnosisInput {
  const from = input.record.jobId;
  return {
    ...input,
    record: { ...input.record, jobId },
    samples: input.samples.map((s) => ({ ...s, jobId })),
    events: input.events.map((e) => (e.jobId === from ? { ...e, jobId } : e)),
  };
}

/** Earlier completed runs of the same job, one a day, for the run-time history a timeout weighs. */
function pastRuns(input: DiagnosisInput): JobRecord[] {
  return (input.history?.runTimesSeconds ?? []).map((seconds, i) => {
    const start = Date.parse("2026-11-01T00:00:00Z") + i * 86_400_000;
    return {
      ...input.record,
      jobId: `${input.record.jobId}-past-${i}`,
      submittedAt: new Date(start - 60_000).toISOString(),
      startedAt: new Date(start).toISOString(),
      endedAt: new Date(start + seconds * 1000).toISOString(),
      outcome: { state: "COMPLETED", exitCode: 0 },
      peaks: { runTimeSeconds: seconds },
      steps: undefined,
    };
  });
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const pattern = (p: string | RegExp) => (typeof p === "string" ? new RegExp(escapeRe(p)) : p);

describe("every diagnosis scenario through ingest, storage and GET /v1/jobs/:id/diagnosis", () => {
  const scenarios = distinctJobs(diagnosisScenarios);
  const clusters = [...new Set(scenarios.map((s) => s.input.record.cluster))];
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;

  async function send(token: string, method: "POST" | "PUT", url: string, payload: unknown, type?: string) {
    const res = await app.inject({
      method,
      url,
      headers: { ...bearer(token), ...(type ? { "content-type": type } : {}) },
      payload: payload as string,
    });
    expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(300);
  }

  async function ingest(s: DiagnosisScenario): Promise<void> {
    const { record, samples, events, submission, logLines } = s.input;
    const token = collectorToken(record.cluster);
    await send(token, "POST", "/v1/jobs", { records: [record, ...pastRuns(s.input)] });
    if (samples.length > 0)
      await send(token, "POST", "/v1/usage", { idempotencyKey: `usage-${s.name}`, samples });
    if (events.length > 0) await send(token, "POST", "/v1/events", { events });
    const query = `cluster=${record.cluster}&jobId=${encodeURIComponent(record.jobId)}`;
    if (submission) await send(token, "PUT", `/v1/artifacts?kind=script&${query}`, submission, "text/plain");
    if (logLines?.length) {
      const text = logLines.map((l) => l.line).join("\n");
      await send(token, "PUT", `/v1/artifacts?kind=log&${query}`, text, "text/plain");
    }
  }

  beforeAll(async () => {
    f = await openIntelligenceFixture("intel-scenarios", 0);
    service = testService(f);
    await service.start();
    app = await testApp(f, service, [PRINCIPALS.platform, ...clusters.map(collectorPrincipal)]);
    for (const s of scenarios) await ingest(s);
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  it("covers every scenario of the suite", () => {
    expect(scenarios.length).toBe(diagnosisScenarios.length);
    expect(scenarios.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(scenarios.map((s) => [s.name, s] as const))("%s", (_name, s) => {
    const { record } = s.input;
    const want = s.expect;
    let d: Diagnosis;

    beforeAll(async () => {
      const res = await app.inject({
        url: `/v1/jobs/${encodeURIComponent(record.jobId)}/diagnosis?cluster=${record.cluster}`,
        headers: bearer(PLATFORM),
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      d = res.json() as Diagnosis;
    });

    it("finds the expected findings and nothing else", () => {
      expect(d.findings.map((x) => x.kind).sort()).toEqual([...want.findings].sort());
      expect(d.causeDetermined).toBe(want.causeDetermined);
    });

    it("lists what it could not see", () => {
      expect([...new Set(d.unseen.map((u) => u.source))].sort()).toEqual([...new Set(want.unseen)].sort());
    });

    it("makes the claims the data supports, and only those", () => {
      for (const [kind, phrases] of Object.entries(want.claims ?? {})) {
        const claim = d.findings.find((x) => x.kind === kind)?.claim ?? "";
        for (const p of phrases ?? []) expect(claim).toMatch(pattern(p));
      }
      const all = d.findings.map((x) => x.claim).join("\n");
      for (const p of want.neverClaims ?? []) expect(all).not.toMatch(pattern(p));
    });

    it("cites only evidence that is in the stored data", () => {
      const stored: DiagnosisInput = {
        ...s.input,
        // Stored log lines keep their text; where each was read is the artifact, not the collector's label.
        logLines: s.input.logLines?.map((l) => ({ ...l, source: "job-log" })),
        sourcesSeen: {},
      };
      expect(checkEvidence(d, stored)).toEqual([]);
    });
  });
});
