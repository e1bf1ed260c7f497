import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AccuracyReport } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { accessScope, findVisibleJob } from "../../../src/http/routes/access.js";
import { adviceHistoryRoutes } from "../../../src/http/routes/intelligence/advice-history.js";
import type { RouteContext } from "../../../src/http/routes/route-handler.js";
import { wasteReportHandlers } from "../../../src/http/routes/waste-report.js";
import { webReportPlugin } from "../../../src/http/web/web-report-plugin.js";
import { diagnose } from "../../../src/intelligence/diagnosis/index.js";
import { accuracyReport } from "./accuracy-fixture.js";
import { seedShowcaseAdvice } from "./advice-fixture.js";
import { showcaseEvents, showcaseRecord, showcaseSamples, wasteRecords } from "./report-fixture.js";

export const TOKENS = {
  platform: "platform-report-token-0000001",
  collector: "collector-hpc1-report-token-01",
  researcher: "researcher-alice-report-token1",
  platformHpc2: "platform-hpc2-report-token-001",
};

/** The real app on a real socket, with the fixture's jobs, samples and events ingested over HTTP. */
export type ReportServer = {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** What `GET /v1/accuracy` answers; tests may swap it. */
  accuracy: { report: unknown };
  /** GET an API path with a token, parsed. */
  get(path: string, token?: string): Promise<{ status: number; body: unknown; headers: Headers }>;
  close(): Promise<void>;
};

/**
 * Starts `buildApp` on a fresh database with the web report and the waste report wired as the lead
 * wires them in app.ts, plus stand-ins for the intelligence plane's accuracy and diagnosis routes:
 * the accuracy report is fixed, the diagnosis is the real diagnosis engine run on stored data. The
 * advice history is the real route, over the showcase job's advice recorded in the database.
 */
export async function startReportServer(prefix: string): Promise<ReportServer> {
  const db: TestDatabase = await createTestDatabase(prefix);
  const objects = await mkdtemp(join(tmpdir(), "jobsight-report-objects-"));
  const accuracy: { report: unknown } = { report: accuracyReport() satisfies AccuracyReport };
  const config = parseServerConfig({
    postgres: { url: db.url, poolSize: 4 },
    objectStore: { dir: objects },
    http: { logLevel: "silent" },
    ingest: { retentionDays: 0 },
    auth: {
      tokens: [
        { token: TOKENS.platform, role: "platform", user: "ops" },
        { token: TOKENS.collector, role: "collector", user: "svc-collector", cluster: "hpc1" },
        { token: TOKENS.researcher, role: "researcher", user: "alice" },
        { token: TOKENS.platformHpc2, role: "platform", user: "ops2", cluster: "hpc2" },
      ],
    },
  });
  const app = await buildApp({
    config,
    handlers: (deps) => ({
      ...wasteReportHandlers(deps),
      ...adviceHistoryRoutes(deps),
      getAccuracy: async () => accuracy.report,
      getDiagnosis: async ({
        params,
        query,
        principal,
      }: RouteContext<unknown, { cluster?: string }, { jobId: string }>) => {
        const record = await findVisibleJob(
          deps.storage,
          accessScope(principal, query.cluster),
          params.jobId,
        );
        const [series, events] = await Promise.all([
          deps.storage.samples.series(record.cluster, record.jobId),
          deps.storage.events.forJob(record.cluster, record.jobId),
        ]);
        return diagnose(
          { record, samples: series.samples, events, sourcesSeen: {} },
          { now: "2026-12-01T12:00:00Z" },
        );
      },
    }),
  });
  // Until app.ts registers the report itself; then this is a no-op.
  if (!app.hasRoute({ method: "GET", url: "/report/:file" })) await app.register(webReportPlugin);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("The app is not listening on TCP");
  const base = `http://127.0.0.1:${address.port}`;

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.collector}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  };
  await post("/v1/jobs", { records: [showcaseRecord(), ...wasteRecords()] });
  await post("/v1/usage", { idempotencyKey: "report-fixture-usage-1", samples: showcaseSamples() });
  await post("/v1/events", { events: showcaseEvents() });
  await seedShowcaseAdvice(app.storage.pool);

  return {
    app,
    base,
    accuracy,
    get: async (path, token = TOKENS.platform) => {
      const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body, headers: response.headers };
    },
    close: async () => {
      await app.close();
      await db.drop();
      await rm(objects, { recursive: true, force: true });
    },
  };
}
