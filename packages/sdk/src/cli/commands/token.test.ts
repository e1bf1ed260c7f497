import type { Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "admin-token": ["admin"], "platform-token": ["platform"] };

function setup(token = "admin-token", env: Record<string, string> = {}) {
  const fake = createFakeServer({ tokens: TOKENS, now: () => new Date("2026-12-02T16:30:00Z") });
  fake.store.clusters.set("hpc1", { id: "hpc1", name: "HPC one", scheduler: "slurm" });
  fake.store.clusters.set("hpc2", { id: "hpc2", name: "HPC two", scheduler: "slurm" });
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0", ...env },
  });
  return { fake, ...cap };
}

describe("jobsight token create", () => {
  it("prints the secret alone on stdout and who it is for on stderr", async () => {
    // The configured cluster and user are who calls `predict`; they must not leak into a token.
    const { io, fake, stdout, stderr } = setup("admin-token", {
      JOBSIGHT_CLUSTER: "hpc2",
      JOBSIGHT_USER: "ops",
    });
    const args = [
      "token",
      "create",
      "--role",
      "researcher",
      "--user",
      "alice",
      "--cluster",
      "hpc1",
      "--label",
      "laptop",
    ];
    expect(await runCli(args, io)).toBe(0);
    const [issued] = fake.store.tokens;
    expect(stdout()).toMatch(/^jst_\S+\n$/);
    expect(stderr()).toBe(
      `token ${issued.id} (researcher alice on hpc1) created; it is shown only this once\n`,
    );
    expect(stderr()).not.toContain(stdout().trim());
    expect(fake.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/v1/tokens",
      body: { role: "researcher", user: "alice", cluster: "hpc1", label: "laptop" },
    });
  });

  it("prints { token, apiToken } with --json and nothing on stderr", async () => {
    const { io, stdout, stderr } = setup();
    expect(await runCli(["token", "create", "--role", "collector", "--cluster", "hpc2", "--json"], io)).toBe(
      0,
    );
    const answer = JSON.parse(stdout());
    expect(Object.keys(answer)).toEqual(["token", "apiToken"]);
    expect(answer.token).toMatch(/^jst_/);
    expect(answer.apiToken).toEqual({
      id: "token-1",
      prefix: answer.token.slice(0, 12),
      role: "collector",
      cluster: "hpc2",
      createdAt: "2026-12-02T16:30:00.000Z",
    });
    expect(stderr()).toBe("");
  });

  it("refuses an unregistered cluster, naming the registered ones and how to add it", async () => {
    const { io, fake, stdout, stderr } = setup();
    expect(await runCli(["token", "create", "--role", "collector", "--cluster", "hpc9"], io)).toBe(2);
    expect(stderr()).toBe(
      "jobsight: cluster hpc9 is not registered (registered: hpc1, hpc2); add it first: jobsight cluster add hpc9 --scheduler slurm|kubernetes\n",
    );
    expect(stdout()).toBe("");
    expect(fake.store.tokens).toEqual([]);
  });

  it("exits 2 before any request when the flags cannot make a valid token", async () => {
    for (const [args, message] of [
      [[], "token create needs --role"],
      [
        ["--role", "root", "--user", "x"],
        "--role must be one of researcher, platform, admin, collector, scheduler, not root",
      ],
      [["--role", "scheduler"], "a scheduler token is bound to one cluster: add --cluster <id>"],
      [["--role", "platform", "--cluster", "hpc1"], "a platform token acts as a user: add --user <name>"],
      [
        ["--role", "admin", "--user", "ops", "--cluster", "hpc1"],
        "an admin token is site-wide: leave out --cluster",
      ],
      [["extra", "--role", "admin", "--user", "ops"], "token create takes no arguments"],
    ] as const) {
      const { io, fake, stderr } = setup();
      expect(await runCli(["token", "create", ...args], io)).toBe(2);
      expect(stderr()).toContain(message);
      expect(fake.requests).toEqual([]);
    }
  });

  it("exits 2 naming the refusal when the token is not an admin's", async () => {
    const { io, stdout, stderr } = setup("platform-token");
    expect(await runCli(["token", "create", "--role", "admin", "--user", "ops"], io)).toBe(2);
    expect(stderr()).toMatch(/POST \/v1\/tokens failed with HTTP 403: .*\[PERMISSION_DENIED\]\n$/);
    expect(stdout()).toBe("");
  });
});

describe("jobsight token list and revoke", () => {
  it("lists tokens without secrets, revokes one by id, and shows it revoked", async () => {
    const { io, fake } = setup();
    expect(await runCli(["token", "create", "--role", "admin", "--user", "ops"], io)).toBe(0);
    const id = fake.store.tokens[0].id;

    const listed = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: "admin-token" },
    });
    expect(await runCli(["token", "list"], listed.io)).toBe(0);
    expect(listed.stdout()).toMatch(/^id\s+prefix\s+role\s+cluster\s+user\s+created\s+state\s+label\n/);
    expect(listed.stdout()).toMatch(
      new RegExp(`${id}\\s+jst_fake0000…\\s+admin\\s+all\\s+ops\\s+2026-12-02 16:30\\s+live\\n`),
    );

    const revoked = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: "admin-token" },
    });
    expect(await runCli(["token", "revoke", id], revoked.io)).toBe(0);
    expect(revoked.stdout()).toBe(`token ${id} (admin ops) revoked since 2026-12-02 16:30\n`);

    const json = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: "admin-token" },
    });
    expect(await runCli(["token", "list", "--json"], json.io)).toBe(0);
    expect(JSON.parse(json.stdout())).toEqual({
      tokens: [
        expect.objectContaining({ id, role: "admin", user: "ops", revokedAt: "2026-12-02T16:30:00.000Z" }),
      ],
    });
    expect(json.stdout()).not.toContain('token":');
  });

  it("exits 2 for an unknown id or a missing one", async () => {
    const unknown = setup();
    expect(await runCli(["token", "revoke", "nope"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toMatch(
      /DELETE \/v1\/tokens\/nope failed with HTTP 404: API token nope not found \[NOT_FOUND\]/,
    );
    const missing = setup();
    expect(await runCli(["token", "revoke"], missing.io)).toBe(2);
    expect(missing.stderr()).toBe(
      "jobsight: token revoke needs exactly one argument: jobsight token revoke <id> [--json]\n",
    );
  });
});
