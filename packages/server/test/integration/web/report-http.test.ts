import { compileValidator, WasteReport, type WasteRow } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wasteRecords } from "./report-fixture.js";
import { type ReportServer, startReportServer, TOKENS } from "./report-server.js";

describe("web report and waste report over HTTP", () => {
  let server: ReportServer;

  beforeAll(async () => {
    server = await startReportServer("web_report_http");
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves every page and uPlot without a token, with a strict content security policy", async () => {
    for (const [path, type] of [
      ["/report/", "text/html"],
      ["/report/index.html", "text/html"],
      ["/report/jobs.html", "text/html"],
      ["/report/accuracy.html", "text/html"],
      ["/report/waste.html", "text/html"],
      ["/report/alerts.html", "text/html"],
      ["/report/report.css", "text/css"],
      ["/report/job.js", "text/javascript"],
      ["/report/vendor/uPlot.iife.min.js", "text/javascript"],
      ["/report/vendor/uPlot.min.css", "text/css"],
    ]) {
      const response = await fetch(`${server.base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toContain(type);
      expect(response.headers.get("content-security-policy"), path).toContain("script-src 'self'");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect((await response.text()).length, path).toBeGreaterThan(100);
    }
  });

  it("redirects /report to /report/ so the pages' relative links resolve", async () => {
    const response = await fetch(`${server.base}/report?x=1`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/report/?x=1");
  });

  it("answers 304 to a request that already has the file, and 404 for files it does not ship", async () => {
    const first = await fetch(`${server.base}/report/api.js`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${server.base}/report/api.js`, { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    for (const path of ["/report/nope.js", "/report/vendor/uPlot.cjs.js", "/report/..%2Fapp.ts"]) {
      const missing = await fetch(`${server.base}${path}`);
      expect(missing.status, path).toBe(404);
      expect(((await missing.json()) as { code: string }).code, path).toBe("NOT_FOUND");
    }
  });

  it("keeps every figure behind the API's tokens and roles", async () => {
    expect((await server.get("/v1/reports/waste", "")).status).toBe(401);
    expect((await server.get("/v1/reports/waste", TOKENS.researcher)).status).toBe(403);
    expect((await server.get("/v1/reports/waste?by=team")).status).toBe(400);
  });

  it("sums requested against used per user, weighted by run time, over the jobs where both are known", async () => {
    const { status, body } = await server.get("/v1/reports/waste?by=user&cluster=hpc1");
    expect(status).toBe(200);
    const report = body as WasteReport;
    expect(compileValidator(WasteReport).validate(report).ok).toBe(true);
    expect(report.by).toBe("user");
    const bob = report.rows.find((r) => r.key === "bob") as WasteRow;
    const bobJobs = wasteRecords().filter((r) => r.spec.user === "bob");
    const run = (r: (typeof bobJobs)[number]) => r.peaks?.runTimeSeconds ?? 0;
    expect(bob.jobs).toBe(bobJobs.length);
    const sum = (f: (r: (typeof bobJobs)[number]) => number) => bobJobs.reduce((t, r) => t + f(r), 0);
    expect(bob.memoryRequestedByteSeconds).toBeCloseTo(
      sum((r) => (r.spec.requested.memoryBytes ?? 0) * run(r)),
      -3,
    );
    expect(bob.memoryUsedByteSeconds).toBeCloseTo(
      sum((r) => (r.peaks?.memoryBytes ?? 0) * run(r)),
      -3,
    );
    expect(bob.coreSecondsRequested).toBeCloseTo(
      sum((r) => (r.spec.requested.cores ?? 0) * run(r)),
      3,
    );
    expect(bob.coreSecondsUsed).toBeCloseTo(
      sum((r) => r.peaks?.cpuTimeSeconds ?? 0),
      3,
    );
    expect(bob.gpuSecondsRequested).toBe(0);
    expect(bob.walltimeRequestedSeconds).toBe(sum((r) => r.spec.requested.walltimeSeconds ?? 0));
    expect(bob.walltimeUsedSeconds).toBeCloseTo(sum(run), 6);
    const waste = (r: WasteRow) => r.memoryRequestedByteSeconds - r.memoryUsedByteSeconds;
    for (let i = 1; i < report.rows.length; i++)
      expect(waste(report.rows[i - 1])).toBeGreaterThanOrEqual(waste(report.rows[i]));
  });

  it("counts GPUs that did work against GPUs requested, by account and by partition", async () => {
    const byAccount = (await server.get("/v1/reports/waste?by=account")).body as WasteReport;
    const ml = byAccount.rows.find((r) => r.key === "ml-team") as WasteRow;
    // dave's two 4-GPU jobs used one GPU each; alice's OOM-killed job used one of its two.
    const mlJobs = wasteRecords().filter((r) => r.spec.account === "ml-team");
    const gpuSeconds = mlJobs.reduce((t, r) => t + (r.peaks?.runTimeSeconds ?? 0), 0);
    expect(ml.jobs).toBe(mlJobs.length + 1);
    expect(ml.gpuSecondsUsed).toBeGreaterThan(gpuSeconds);
    expect(ml.gpuSecondsRequested).toBeGreaterThan(3.9 * gpuSeconds);
    const byPartition = (await server.get("/v1/reports/waste?by=partition")).body as WasteReport;
    expect(byPartition.rows.map((r) => r.key).sort()).toEqual(["batch", "bigmem", "gpu", "short"]);
    const total = (rows: WasteRow[]) => rows.reduce((t, r) => t + r.memoryRequestedByteSeconds, 0);
    expect(total(byPartition.rows)).toBeCloseTo(total(byAccount.rows), -3);
  });

  it("narrows to the jobs that ended in [from, to) and to the cluster asked for", async () => {
    const { body } = await server.get(
      "/v1/reports/waste?by=user&from=2026-11-28T12:00:00Z&to=2026-11-28T12:45:00Z",
    );
    const users = (body as WasteReport).rows.map((r) => r.key).sort();
    expect(users).toEqual(["bob"]);
    const other = (await server.get("/v1/reports/waste?cluster=hpc9")).body as WasteReport;
    expect(other.rows).toEqual([]);
  });

  it("shows a platform token bound to a cluster only that cluster's jobs", async () => {
    const own = await server.get("/v1/reports/waste", TOKENS.platformHpc2);
    expect(own.status).toBe(200);
    expect((own.body as WasteReport).rows).toEqual([]);
    expect((await server.get("/v1/reports/waste?cluster=hpc1", TOKENS.platformHpc2)).status).toBe(403);
  });
});
