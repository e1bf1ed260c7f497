import type { WasteReport } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../../client.js";
import { captureIo } from "../../test-support/capture-io.js";
import { runCli } from "../run-cli.js";

const HOUR = 3600;
const GIB = 2 ** 30;

const row = {
  key: "alice",
  jobs: 2,
  memoryRequestedByteSeconds: 64 * GIB * 2 * HOUR,
  memoryUsedByteSeconds: 16 * GIB * 2 * HOUR,
  coreSecondsRequested: 16 * HOUR,
  coreSecondsUsed: 2 * HOUR,
  gpuSecondsRequested: 4 * HOUR,
  gpuSecondsUsed: 2 * HOUR,
  walltimeRequestedSeconds: 8 * HOUR,
  walltimeUsedSeconds: 2 * HOUR,
  idleCoreSeconds: 10 * HOUR,
  observedCoreSeconds: 16 * HOUR,
  idleGpuSeconds: 0,
  observedGpuSeconds: 0,
};

const PRICED: WasteReport = {
  generatedAt: "2026-12-02T10:00:00Z",
  by: "user",
  rows: [
    {
      ...row,
      cost: {
        unused: { cores: 0.7, memory: 0.96, total: 1.66, unpriced: ["gpus"] },
        idle: { cores: 0.5, total: 0.5 },
      },
    },
  ],
  rates: { currency: "EUR", coreHour: 0.05, memoryGibHour: 0.01 },
  savings: {
    from: "2026-11-02T10:00:00.000Z",
    to: "2026-12-02T10:00:00.000Z",
    jobs: 2,
    jobsWithAdvice: 1,
    truncated: false,
    coreHours: 12,
    memoryGibHours: 96,
    gpuHours: 0,
    cost: { cores: 0.6, memory: 0.96, total: 1.56 },
  },
};

/** A server that answers the waste report with `body`, recording the queries asked. */
function serve(body: WasteReport) {
  const queries: URLSearchParams[] = [];
  const fetch = async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    queries.push(url.searchParams);
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
  const env = {
    JOBSIGHT_URL: "http://jobsight.test",
    JOBSIGHT_TOKEN: "platform-token",
    JOBSIGHT_RETRIES: "0",
  };
  return { fetch: fetch as typeof globalThis.fetch, env, queries };
}

describe("client.reports.waste", () => {
  it("returns the report typed, with its cost, rates and savings, and asks for savings in the query", async () => {
    const server = serve(PRICED);
    const client = createClient({ baseUrl: "http://jobsight.test", token: "t", fetch: server.fetch });
    const report = await client.reports.waste({ by: "user", savings: true });
    expect(report.rows[0].cost?.unused.total).toBe(1.66);
    expect(report.savings?.cost?.total).toBe(1.56);
    expect(server.queries[0].get("savings")).toBe("true");
  });
});

describe("jobsight waste", () => {
  it("prints unused and idle hours with their money, and the savings", async () => {
    const server = serve(PRICED);
    const { io, stdout } = captureIo({ fetch: server.fetch, env: server.env });
    expect(await runCli(["waste", "--savings"], io)).toBe(0);
    const [header, line, , savings] = stdout().split("\n");
    expect(header).toMatch(
      /^user\s+jobs\s+core-h unused\s+GiB-h unused\s+GPU-h unused\s+core-h idle\s+GPU-h idle\s+unused \(EUR\)\s+idle \(EUR\)$/,
    );
    expect(line).toMatch(
      /^alice\s+2\s+14\.0\s+96\.0\s+2\.0\s+10\.0\s+—\s+€1\.66 \(gpus not priced\)\s+€0\.50$/,
    );
    expect(savings).toBe(
      "Savings had the advice been applied, 2026-11-02 to 2026-12-02: €1.56: 12.0 core-hours, 96.0 GiB-hours, 0.0 GPU-hours (1 of 2 jobs had advice asking for less).",
    );
    expect(server.queries[0].get("savings")).toBe("true");
  });

  it("shows amounts only when the server has no rates", async () => {
    const { rates: _, savings: __, ...plain } = PRICED;
    const server = serve({ ...plain, rows: [row] });
    const { io, stdout } = captureIo({ fetch: server.fetch, env: server.env });
    expect(await runCli(["waste", "--by", "user"], io)).toBe(0);
    expect(stdout()).not.toMatch(/€|EUR|Savings/);
    expect(server.queries[0].get("savings")).toBeNull();
  });

  it("refuses an unknown grouping", async () => {
    const { io, stderr } = captureIo();
    expect(await runCli(["waste", "--by", "node"], io)).toBe(2);
    expect(stderr()).toContain("--by must be user, account or partition, not node");
  });
});
