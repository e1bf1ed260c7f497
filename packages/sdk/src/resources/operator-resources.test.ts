import { describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import { ConflictError, NotFoundError, PermissionError } from "../errors.js";
import { createFakeServer } from "../testing/fake-server.js";

function setup(token = "admin-token") {
  const fake = createFakeServer({ tokens: { "admin-token": ["admin"], "platform-token": ["platform"] } });
  fake.store.clusters.set("hpc1", { id: "hpc1", name: "HPC one", scheduler: "slurm" });
  const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, token, retryDelayMs: 1 });
  return { fake, client };
}

describe("the operator resources", () => {
  it("map refusals to typed errors carrying the server's code", async () => {
    const { client } = setup();
    const unknown = await client.tokens.create({ role: "collector", cluster: "hpc9" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ apiCode: "UNKNOWN_CLUSTER", status: 404 });

    const { fake } = setup();
    fake.seedJobs([
      {
        cluster: "hpc1",
        jobId: "1",
        phase: "submitted",
        source: "slurm-controller",
        submittedAt: "2026-12-01T10:00:00Z",
        spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: {} },
      },
    ]);
    const busy = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, token: "admin-token" });
    await expect(busy.clusters.remove("hpc1")).rejects.toMatchObject({ apiCode: "CLUSTER_HAS_JOBS" });
    await expect(busy.clusters.remove("hpc1")).rejects.toBeInstanceOf(ConflictError);
    await expect(busy.clusters.remove("hpc1", { force: true })).resolves.toMatchObject({ jobs: 1 });

    const platform = setup("platform-token").client;
    await expect(platform.models.rollback()).rejects.toBeInstanceOf(PermissionError);
    await expect(platform.models.status()).resolves.toEqual({
      activeVersion: null,
      servedVersion: null,
      models: [],
    });
  });

  it("never resends a token creation: a retry could issue a second token", async () => {
    const { fake, client } = setup();
    fake.failNext({ operationId: "createToken", status: 503, headers: { "retry-after": "0" } });
    await expect(client.tokens.create({ role: "admin", user: "ops" })).rejects.toMatchObject({ status: 503 });
    expect(fake.requests.filter((r) => r.operationId === "createToken")).toHaveLength(1);
  });
});
