import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeCommand } from "../test-support/fake-command.js";
import { HealthServer } from "./health-server.js";

const hook = join(import.meta.dirname, "..", "..", "hooks", "epilog.sh");

describe("HealthServer", () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("serves the health report and takes epilog requests on 127.0.0.1", async () => {
    const asked: string[] = [];
    let status = "ok";
    server = new HealthServer({
      port: 0,
      report: () => ({ status, lagSeconds: 1.5, spool: { unacked: 3 } }),
      onEpilog: async (job) => {
        asked.push(job);
        return job === "42";
      },
    });
    const port = await server.start();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", lagSeconds: 1.5, spool: { unacked: 3 } });
    status = "failing";
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(503);
    const epilog = await fetch(`http://127.0.0.1:${port}/v1/epilog?job=42`, { method: "POST" });
    expect(await epilog.json()).toEqual({ job: "42", recorded: true });
    expect((await fetch(`http://127.0.0.1:${port}/v1/epilog`, { method: "POST" })).status).toBe(400);
    expect((await fetch(`http://127.0.0.1:${port}/nope`)).status).toBe(404);
    expect(asked).toEqual(["42"]);
  });
});

describe("hooks/epilog.sh", () => {
  it("passes the SLURM job id to the collector and exits 0", () => {
    const bin = fakeCommand("jobsight-collector", `echo "$*" > "$(dirname "$0")/args"; exit 3`);
    const run = spawnSync("sh", [hook], {
      env: { ...process.env, SLURM_JOB_ID: "4242", JOBSIGHT_COLLECTOR_BIN: bin.path },
    });
    expect(run.status).toBe(0);
    expect(readFileSync(join(bin.dir, "args"), "utf8").trim()).toBe("epilog --job 4242");
    bin.cleanup();
  });

  it("exits 0 quickly when the collector hangs or is missing", () => {
    const hang = fakeCommand("jobsight-collector", "sleep 30");
    const started = Date.now();
    const run = spawnSync("sh", [hook], {
      env: {
        ...process.env,
        SLURM_JOB_ID: "1",
        JOBSIGHT_COLLECTOR_BIN: hang.path,
        JOBSIGHT_EPILOG_TIMEOUT: "1",
      },
    });
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    hang.cleanup();
    const missing = spawnSync("sh", [hook], {
      env: { ...process.env, SLURM_JOB_ID: "1", JOBSIGHT_COLLECTOR_BIN: "/nonexistent/bin" },
    });
    expect(missing.status).toBe(0);
    expect(spawnSync("sh", [hook], { env: { ...process.env, SLURM_JOB_ID: "" } }).status).toBe(0);
  });
});
