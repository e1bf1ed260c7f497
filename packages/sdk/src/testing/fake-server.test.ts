import { createHash } from "node:crypto";
import { validators } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import { ResponseValidationError, ServerError, TimeoutError } from "../errors.js";
import { createFakeServer } from "./fake-server.js";

const sample = {
  cluster: "hpc1",
  jobId: "7",
  node: "n1",
  time: "2026-12-01T10:30:00Z",
  memory: { currentBytes: 2 ** 30, peakBytes: 2 ** 31 },
};

describe("the fake server", () => {
  it("answers unknown paths with 404 and wrong methods with 405, as ApiErrors", async () => {
    const fake = createFakeServer();
    const missing = await fake.fetch(`${fake.baseUrl}/v2/nothing`);
    expect(missing.status).toBe(404);
    expect(validators.ApiError.check(await missing.json())).toBe(true);
    expect((await fake.fetch(`${fake.baseUrl}/v1/accuracy`, { method: "DELETE" })).status).toBe(405);
  });

  it("validates queries and bodies against the route table, listing every field", async () => {
    const fake = createFakeServer();
    const badQuery = await fake.fetch(`${fake.baseUrl}/v1/jobs?limit=0&colour=red`);
    expect(badQuery.status).toBe(400);
    const paths = ((await badQuery.json()) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["/query/limit"]));
    const notJson = await fake.fetch(`${fake.baseUrl}/v1/predictions`, { method: "POST", body: "{oops" });
    expect(notJson.status).toBe(400);
  });

  it("injects failures for one operation, a number of times, with any body and headers", async () => {
    const fake = createFakeServer();
    const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, retries: 3, retryDelayMs: 1 });
    fake.failNext({ operationId: "getAccuracy", status: 502, body: "<html>proxy</html>", times: 2 });
    expect((await client.health()).status).toBe("ok");
    const report = await client.accuracy.get();
    expect(report.mode).toBe("live");
    expect(fake.requests.map((r) => r.operationId)).toEqual([
      "getHealth",
      "getAccuracy",
      "getAccuracy",
      "getAccuracy",
    ]);

    fake.failNext({ status: 200, body: "not json" });
    await expect(client.health()).rejects.toBeInstanceOf(ResponseValidationError);
    fake.failNext({ status: 500, times: 10 });
    await expect(client.health({ retries: 0 })).rejects.toBeInstanceOf(ServerError);
    fake.reset();
    expect(fake.requests).toEqual([]);
    expect((await client.health()).status).toBe("ok");
  });

  it("can be slow, so timeouts and aborts can be tested", async () => {
    const fake = createFakeServer({ latencyMs: 300 });
    const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, timeoutMs: 50, retries: 0 });
    await expect(client.health()).rejects.toBeInstanceOf(TimeoutError);
  });

  it("stores usage, events, artifacts, policy and clusters", async () => {
    const fake = createFakeServer({ now: () => new Date("2026-12-02T00:00:00Z") });
    const post = (path: string, body: unknown, method = "POST") =>
      fake.fetch(`${fake.baseUrl}${path}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch });
    await client.jobs.ingest([
      {
        cluster: "hpc1",
        jobId: "7",
        phase: "ended",
        source: "collector",
        spec: { cluster: "hpc1", scheduler: "slurm", user: "bob", requested: {} },
        submittedAt: "2026-12-01T10:00:00Z",
        outcome: { state: "FAILED", exitCode: 3 },
      },
    ]);
    expect(
      await (await post("/v1/usage", { idempotencyKey: "u-00000001", samples: [sample] })).json(),
    ).toEqual({ accepted: 1, duplicates: 0 });
    expect(
      await (await post("/v1/usage", { idempotencyKey: "u-00000001", samples: [sample] })).json(),
    ).toEqual({ accepted: 0, duplicates: 1 });
    const event = {
      cluster: "hpc1",
      node: "n1",
      time: "2026-12-01T10:31:00Z",
      kind: "gpu_xid",
      jobId: "7",
      message: "NVRM: Xid 79",
    };
    await post("/v1/events", { events: [event] });
    expect((await client.jobs.usage("7")).samples).toHaveLength(1);
    expect((await client.jobs.events("7")).events[0].message).toBe("NVRM: Xid 79");
    const diagnosis = await client.diagnoses.get("7");
    expect(diagnosis.findings.map((f) => f.kind)).toEqual(["gpu_fault_hardware"]);
    expect(diagnosis.generatedAt).toBe("2026-12-02T00:00:00.000Z");

    const stored = await fake.fetch(`${fake.baseUrl}/v1/artifacts?kind=script`, {
      method: "PUT",
      body: "#!/bin/bash\n",
    });
    expect(stored.status).toBe(201);
    const { sha256 } = (await stored.json()) as { sha256: string };
    expect(sha256).toBe(createHash("sha256").update("#!/bin/bash\n").digest("hex"));
    expect(await (await fake.fetch(`${fake.baseUrl}/v1/artifacts/${sha256}`)).text()).toBe("#!/bin/bash\n");

    expect((await post("/v1/policy", { name: "strict", leaveAlone: ["gpus"] }, "PUT")).status).toBe(200);
    expect(await (await fake.fetch(`${fake.baseUrl}/v1/policy`)).json()).toEqual({
      name: "strict",
      leaveAlone: ["gpus"],
    });
    expect((await post("/v1/clusters", { id: "hpc1", name: "HPC", scheduler: "slurm" })).status).toBe(201);
    expect((await post("/v1/clusters", { id: "hpc1", name: "HPC", scheduler: "slurm" })).status).toBe(409);
  });
});
