import type { Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "admin-token": ["admin"], "platform-token": ["platform"] };

function setup(token = "admin-token") {
  const fake = createFakeServer({ tokens: TOKENS, now: () => new Date("2026-12-02T16:30:00Z") });
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0" },
  });
  return { fake, ...cap };
}

describe("jobsight user list", () => {
  it("lists the users of jobs and live tokens, narrowed by --cluster, as a table or JSON", async () => {
    const { io, fake, stdout } = setup();
    fake.seedJobs([
      {
        cluster: "hpc1",
        jobId: "1",
        phase: "submitted",
        source: "slurm-controller",
        submittedAt: "2026-12-01T10:00:00Z",
        spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: {} },
      },
      {
        cluster: "hpc2",
        jobId: "2",
        phase: "submitted",
        source: "slurm-controller",
        submittedAt: "2026-12-01T11:00:00Z",
        spec: { cluster: "hpc2", scheduler: "slurm", user: "bob", requested: {} },
      },
    ]);
    fake.store.tokens.push({
      id: "t1",
      role: "researcher",
      user: "alice",
      createdAt: "2026-11-01T08:00:00Z",
    });
    fake.store.tokens.push({ id: "t2", role: "platform", user: "carol", createdAt: "2026-11-01T08:00:00Z" });
    expect(await runCli(["user", "list"], io)).toBe(0);
    expect(stdout()).toBe(
      [
        "user   clusters  jobs  last submitted    live tokens",
        "alice  hpc1      1     2026-12-01 10:00  1 (researcher)",
        "bob    hpc2      1     2026-12-01 11:00  0",
        "carol  —         0     —                 1 (platform)",
        "",
      ].join("\n"),
    );

    const json = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: "admin-token" },
    });
    expect(await runCli(["user", "list", "--cluster", "hpc1", "--json"], json.io)).toBe(0);
    expect(JSON.parse(json.stdout())).toEqual({
      users: [
        {
          user: "alice",
          clusters: ["hpc1"],
          jobs: 1,
          lastSubmittedAt: "2026-12-01T10:00:00Z",
          liveTokens: 1,
          tokenRoles: ["researcher"],
        },
        { user: "carol", clusters: [], jobs: 0, liveTokens: 1, tokenRoles: ["platform"] },
      ],
    });
    expect(fake.requests.at(-1)).toMatchObject({ path: "/v1/users", query: { cluster: "hpc1" } });
  });

  it("exits 2 for a platform token: the user list is the admin's", async () => {
    const { io, stdout, stderr } = setup("platform-token");
    expect(await runCli(["user", "list"], io)).toBe(2);
    expect(stderr()).toMatch(/GET \/v1\/users failed with HTTP 403: .*\[PERMISSION_DENIED\]/);
    expect(stdout()).toBe("");
  });
});
