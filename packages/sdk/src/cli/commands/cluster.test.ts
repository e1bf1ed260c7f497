import type { JobRecord, Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "admin-token": ["admin"], "platform-token": ["platform"] };

function setup(token = "admin-token", env: Record<string, string> = {}) {
  const fake = createFakeServer({ tokens: TOKENS, now: () => new Date("2026-12-02T16:30:00Z") });
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0", ...env },
  });
  return { fake, ...cap };
}

// A second run of the CLI against the same fake server.
function setupWith(fake: ReturnType<typeof createFakeServer>, token = "admin-token") {
  return captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0" },
  });
}

function job(cluster: string, jobId: string): JobRecord {
  return {
    cluster,
    jobId,
    phase: "submitted",
    source: "slurm-controller",
    submittedAt: "2026-12-01T10:00:00Z",
    spec: { cluster, scheduler: "slurm", user: "alice", requested: { memoryBytes: 2 ** 30 } },
  };
}

describe("jobsight cluster add", () => {
  it("registers a cluster, its name defaulting to the id, without applying the configured cluster", async () => {
    const { io, fake, stdout } = setup("admin-token", { JOBSIGHT_CLUSTER: "other" });
    expect(await runCli(["cluster", "add", "hpc1", "--scheduler", "slurm"], io)).toBe(0);
    expect(stdout()).toBe("registered cluster hpc1 (hpc1, slurm)\n");
    expect(fake.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/v1/clusters",
      body: { id: "hpc1", name: "hpc1", scheduler: "slurm" },
    });
  });

  it("prints the Cluster document with --json", async () => {
    const { io, stdout } = setup();
    const args = ["cluster", "add", "k8s-a", "--name", "Kubernetes A", "--scheduler", "kubernetes", "--json"];
    expect(await runCli(args, io)).toBe(0);
    expect(JSON.parse(stdout())).toEqual({
      id: "k8s-a",
      name: "Kubernetes A",
      scheduler: "kubernetes",
      createdAt: "2026-12-02T16:30:00.000Z",
    });
  });

  it("exits 2 before any request for a missing id, a missing or unknown scheduler", async () => {
    for (const [args, message] of [
      [
        ["cluster", "add", "--scheduler", "slurm"],
        "cluster add needs exactly one argument: jobsight cluster add <id>",
      ],
      [["cluster", "add", "hpc1"], "cluster add needs --scheduler"],
      [["cluster", "add", "hpc1", "--scheduler", "pbs"], "--scheduler must be slurm or kubernetes, not pbs"],
      [["cluster", "add", "hpc1", "--scheduler", "slurm", "--nmae", "x"], "Unknown option '--nmae'"],
    ] as const) {
      const { io, fake, stderr } = setup();
      expect(await runCli([...args], io)).toBe(2);
      expect(stderr()).toContain(message);
      expect(fake.requests).toEqual([]);
    }
  });
});

describe("jobsight cluster list", () => {
  it("prints one row per cluster, or says none is registered", async () => {
    const { io, fake, stdout } = setup("platform-token");
    expect(await runCli(["cluster", "list"], io)).toBe(0);
    expect(stdout()).toBe("no cluster is registered; add one with 'jobsight cluster add'\n");
    fake.store.clusters.set("hpc1", {
      id: "hpc1",
      name: "HPC one",
      scheduler: "slurm",
      createdAt: "2026-11-01T08:00:00Z",
    });
    const again = setupWith(fake);
    expect(await runCli(["cluster", "list"], again.io)).toBe(0);
    expect(again.stdout()).toBe(
      "id    name     scheduler  registered\nhpc1  HPC one  slurm      2026-11-01 08:00\n",
    );
  });

  it("prints { clusters } with --json", async () => {
    const { io, fake, stdout } = setup();
    fake.store.clusters.set("hpc1", { id: "hpc1", name: "HPC one", scheduler: "slurm" });
    expect(await runCli(["cluster", "list", "--json"], io)).toBe(0);
    expect(JSON.parse(stdout())).toEqual({ clusters: [{ id: "hpc1", name: "HPC one", scheduler: "slurm" }] });
  });
});

describe("jobsight cluster remove", () => {
  it("removes an idle cluster and says how many tokens were revoked", async () => {
    const { io, fake, stdout } = setup();
    fake.store.clusters.set("old", { id: "old", name: "old", scheduler: "slurm" });
    fake.store.tokens.push({
      id: "t1",
      role: "collector",
      cluster: "old",
      createdAt: "2026-11-01T08:00:00Z",
    });
    expect(await runCli(["cluster", "remove", "old"], io)).toBe(0);
    expect(stdout()).toBe("removed cluster old: 1 API token revoked, 0 recorded jobs kept\n");
    expect(fake.store.clusters.has("old")).toBe(false);
    expect(fake.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/v1/clusters/old", query: {} });
  });

  it("refuses a cluster with jobs unless --force, naming the flag", async () => {
    const { io, fake, stderr } = setup();
    fake.store.clusters.set("hpc1", { id: "hpc1", name: "hpc1", scheduler: "slurm" });
    fake.seedJobs([job("hpc1", "1"), job("hpc1", "2")]);
    expect(await runCli(["cluster", "remove", "hpc1"], io)).toBe(2);
    expect(stderr()).toBe(
      "jobsight: cluster hpc1 has recorded jobs: removing it refuses its collectors and revokes its API tokens (the jobs are kept); run again with --force\n",
    );
    expect(fake.store.clusters.has("hpc1")).toBe(true);

    const forced = setupWith(fake);
    expect(await runCli(["cluster", "remove", "hpc1", "--force", "--json"], forced.io)).toBe(0);
    expect(JSON.parse(forced.stdout())).toEqual({
      cluster: { id: "hpc1", name: "hpc1", scheduler: "slurm" },
      jobs: 2,
      revokedTokens: 0,
    });
    expect(fake.requests.at(-1)).toMatchObject({ query: { force: "true" } });
  });

  it("exits 2 with the server's reason for an unknown cluster or a platform token", async () => {
    const unknown = setup();
    expect(await runCli(["cluster", "remove", "nope"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toMatch(
      /DELETE \/v1\/clusters\/nope failed with HTTP 404: .*nope is not a registered cluster \[NOT_FOUND\]/,
    );

    const platform = setup("platform-token");
    platform.fake.store.clusters.set("hpc1", { id: "hpc1", name: "hpc1", scheduler: "slurm" });
    expect(await runCli(["cluster", "remove", "hpc1"], platform.io)).toBe(2);
    expect(platform.stderr()).toMatch(/failed with HTTP 403: .*\[PERMISSION_DENIED\]/);
  });
});

describe("jobsight cluster", () => {
  it("prints its help with --help and on a missing subcommand, and refuses an unknown one", async () => {
    const help = setup();
    expect(await runCli(["cluster", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toContain("Usage: jobsight cluster <command>");
    expect(help.stdout()).toContain("remove <id> [--force] [--json]");

    const none = setup();
    expect(await runCli(["cluster"], none.io)).toBe(2);
    expect(none.stderr()).toContain("Usage: jobsight cluster <command>");

    const unknown = setup();
    expect(await runCli(["cluster", "delete", "hpc1"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toBe(
      "jobsight: unknown cluster command 'delete'; run 'jobsight cluster --help'\n",
    );
  });
});
