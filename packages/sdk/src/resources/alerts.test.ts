import type { AlertAction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import { BadRequestError } from "../errors.js";
import { createFakeServer } from "../testing/fake-server.js";

const action = (id: string, jobId: string, at: string, cluster = "hpc1"): AlertAction => ({
  id,
  at,
  cluster,
  jobId,
  user: "alice",
  kind: "cancel-job",
  rule: "gpus-idle",
  outcome: "dry-run",
  executor: "scancel",
  message: `Would cancel job ${jobId}: its GPUs stayed idle 30 min after the warning (dry run).`,
  evidence: [{ kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "GPU 0 at most 1%" }],
});

describe("client.alerts.actions", () => {
  it("lists the audit log newest first, narrowed by the query it sends", async () => {
    const fake = createFakeServer({ tokens: { "ops-token": ["platform"] } });
    fake.store.alertActions.push(
      action("a1", "41", "2026-12-02T10:00:00Z"),
      action("a2", "42", "2026-12-02T11:00:00Z"),
      action("a3", "43", "2026-12-02T12:00:00Z", "hpc2"),
    );
    const client = createClient({
      baseUrl: fake.baseUrl,
      fetch: fake.fetch,
      token: "ops-token",
      retryDelayMs: 1,
    });
    expect((await client.alerts.actions()).map((a) => a.id)).toEqual(["a3", "a2", "a1"]);
    expect((await client.alerts.actions({ cluster: "hpc1", limit: 1 })).map((a) => a.jobId)).toEqual(["42"]);
    expect((await client.alerts.actions({ jobId: "41" })).map((a) => a.id)).toEqual(["a1"]);
    const sent = fake.requests.filter((r) => r.operationId === "listAlertActions");
    expect(sent).toHaveLength(3);
    expect(sent[1].method).toBe("GET");
  });

  it("maps a query the route table refuses to a BadRequestError", async () => {
    const fake = createFakeServer({ tokens: { "ops-token": ["platform"] } });
    const client = createClient({
      baseUrl: fake.baseUrl,
      fetch: fake.fetch,
      token: "ops-token",
      retryDelayMs: 1,
    });
    const error = await client.alerts.actions({ limit: 0 }).catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
  });
});
