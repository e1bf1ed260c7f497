import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status as GrpcStatus } from "@grpc/grpc-js";
import {
  decodeExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeObservations,
} from "@jobsight/otel-bridge";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { type ServerProcess, startServerProcess, stopProcess } from "../server-process.js";
import { postOtlp, RawGrpcClient } from "./otlp-clients.js";
import { richSamples } from "./otlp-fixture.js";

const COLLECTOR = "collector-serve-hpc1-token-01";
const PLATFORM = "platform-serve-token-00000001";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("jobsight-server serve: OTLP receivers and a graceful shutdown", () => {
  let db: TestDatabase;
  let dir: string;
  let server: ServerProcess | undefined;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase("otlp_serve");
    dir = await mkdtemp(join(tmpdir(), "jobsight-otlp-serve-"));
    const config = join(dir, "jobsight.json");
    await writeFile(
      config,
      JSON.stringify({
        dataDir: dir,
        postgres: { url: db.url },
        rateLimit: { enabled: false },
        auth: {
          tokens: [
            { token: COLLECTOR, role: "collector", user: "svc", cluster: "hpc1" },
            { token: PLATFORM, role: "platform", user: "ops" },
          ],
        },
      }),
      // Holds secrets: the server refuses a config file others can read.
      { mode: 0o600 },
    );
    server = await startServerProcess(["--config", config]);
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
  });

  afterAll(async () => {
    if (server) await stopProcess(server.child);
    await pool?.end();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves OTLP on its own ports, and on SIGTERM finishes and commits the export in flight", async () => {
    const s = server!;
    expect(s.otlpGrpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.otlpHttp).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/metrics$/);
    const headers = { authorization: `Bearer ${COLLECTOR}`, "content-type": "application/x-protobuf" };
    const body = (job: string, n: number) =>
      encodeExportMetricsRequest(encodeObservations(richSamples("hpc1", job, n)));

    // Before its cluster is registered, the collector is refused; once registered, it is let in.
    expect((await postOtlp(s.otlpHttp!, body("early", 2), headers)).status).toBe(403);
    const registered = await fetch(`${s.url}/v1/clusters`, {
      method: "POST",
      headers: { authorization: `Bearer ${PLATFORM}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "hpc1", name: "HPC 1", scheduler: "slurm" }),
    });
    expect(registered.status).toBeLessThan(300);
    await sleep(2_100); // the receiver remembers a refusal for 2 s
    expect((await postOtlp(s.otlpHttp!, body("warm", 3), headers)).status).toBe(200);

    // Hold the next export inside its transaction: lock the table it writes to.
    const locker = await pool.connect();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE usage_samples IN EXCLUSIVE MODE");
    const inFlight = postOtlp(s.otlpHttp!, body("drained", 40), headers);
    for (let i = 0; ; i++) {
      const { rows } = await pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = 'jobsight-server' AND wait_event_type = 'Lock'",
      );
      if (rows.length > 0) break;
      if (i > 200) throw new Error("the export never reached the database");
      await sleep(25);
    }
    const exited = new Promise<number | null>((resolve) => s.child.once("exit", (code) => resolve(code)));
    s.child.kill("SIGTERM");
    await sleep(300);
    // Draining: still running, taking no new exports (retryable for the sender).
    expect(s.child.exitCode).toBeNull();
    const grpc = new RawGrpcClient(s.otlpGrpc!);
    const refused = await grpc.export(body("late", 1), COLLECTOR);
    grpc.close();
    expect(refused.error?.code).toBe(GrpcStatus.UNAVAILABLE);

    await locker.query("COMMIT");
    locker.release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(decodeExportMetricsResponse(answer.body)).toEqual({});
    const code = await exited;
    if (code !== 0) console.log(s.output.slice(-15).join("\n"));
    expect(code).toBe(0);
    server = undefined;
    const { rows } = await pool.query<{ job_id: string; n: number }>(
      "SELECT job_id, count(*)::int AS n FROM usage_samples GROUP BY job_id ORDER BY job_id",
    );
    expect(rows).toEqual([
      { job_id: "drained", n: 40 },
      { job_id: "warm", n: 3 },
    ]);
  }, 120_000);
});
