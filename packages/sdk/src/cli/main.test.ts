import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveOverHttp } from "../test-support/fake-over-http.js";
import { scratchDir } from "../test-support/scratch-dir.js";
import { startScriptedServer } from "../test-support/scripted-http-server.js";
import { createFakeServer } from "../testing/fake-server.js";
import { resolveServerBin } from "./commands/delegate.js";

const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const main = fileURLToPath(new URL("./main.ts", import.meta.url));

// The bin as a user runs it: its own process, real sockets, no NODE_PATH from the test runner.
function run(args: string[], env: Record<string, string> = {}) {
  const cwd = scratchDir("jobsight-bin-");
  const { NODE_PATH: _, ...base } = process.env;
  const child = spawn(process.execPath, ["--import", tsx, main, ...args], {
    cwd,
    env: { ...base, HOME: cwd, XDG_CONFIG_HOME: join(cwd, "cfg"), NO_COLOR: "1", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

// Concurrent, with room to spare: each run starts a Node process that compiles the CLI from
// source, which takes seconds on a busy machine.
describe.concurrent("the jobsight bin", { timeout: 60_000 }, () => {
  const fake = createFakeServer({
    jobs: [
      {
        cluster: "hpc1",
        jobId: "4242",
        phase: "ended",
        source: "slurm-controller",
        spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 2 ** 30 } },
        submittedAt: "2026-12-01T10:00:00Z",
        outcome: { state: "OUT_OF_MEMORY", signal: 9 },
      },
    ],
  });
  let http: Awaited<ReturnType<typeof serveOverHttp>>;
  beforeAll(async () => {
    http = await serveOverHttp(fake);
  });
  afterAll(() => http.close());

  it("diagnoses over HTTP and exits 1 on an error finding", async () => {
    const r = await run(["diagnose", "4242", "--url", http.url]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("`oom_kill`");
  });

  it("exits 3 when the server is unreachable", async () => {
    const closed = await startScriptedServer([]);
    await closed.close();
    const r = await run(["diagnose", "4242"], { JOBSIGHT_URL: closed.baseUrl, JOBSIGHT_RETRIES: "0" });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("could not reach the Jobsight server");
  });

  it("explains what to install when the server package is not there", async () => {
    // Resolved in a process of its own (no NODE_PATH from the test runner), searching only a scratch
    // project where no @jobsight/server is installed.
    const cwd = scratchDir("jobsight-noserver-");
    const delegate = pathToFileURL(fileURLToPath(new URL("./commands/delegate.ts", import.meta.url))).href;
    const code = `import(${JSON.stringify(delegate)}).then((m) => console.log(JSON.stringify(m.resolveServerBin(${JSON.stringify(cwd)}, [${JSON.stringify(join(cwd, "package.json"))}]))))`;
    const { NODE_PATH: _, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", tsx, "-e", code], { cwd, env });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    await new Promise((resolve) => child.on("close", resolve));
    expect(JSON.parse(out)).toEqual({
      missing: expect.stringContaining(
        "needs the Jobsight server package (@jobsight/server), which is not installed",
      ),
    });
  });

  it("finds the server's bin from the repository, where the workspace installs it", () => {
    const bin = resolveServerBin(process.cwd());
    expect(bin).toEqual({ path: expect.stringMatching(/packages\/server\/bin\/jobsight-server\.js$/) });
  });
});
