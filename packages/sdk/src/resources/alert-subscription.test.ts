import type { Alert } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../client.js";
import { PermissionError } from "../errors.js";
import { createFakeServer } from "../testing/fake-server.js";

function alert(id: string, jobId: string, lastSeen: string, extra: Partial<Alert> = {}): Alert {
  return {
    id,
    cluster: "hpc1",
    jobId,
    user: "alice",
    rule: "gpus-idle",
    severity: "warning",
    state: "firing",
    firstSeen: "2026-12-02T10:00:00Z",
    lastSeen,
    message: `All GPUs of job ${jobId} idle for 30 min.`,
    evidence: [{ kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "GPU 0 at most 1%" }],
    ...extra,
  };
}

function setup(token = "ops-token") {
  const fake = createFakeServer({ tokens: { "ops-token": ["platform"], "svc-token": ["collector"] } });
  const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch, token, retryDelayMs: 1 });
  const polls = () => fake.requests.filter((r) => r.operationId === "listAlerts").length;
  return { fake, client, polls };
}

describe("client.alerts.subscribe", () => {
  it("yields the current alerts, then only new ones and changes of state, each once", async () => {
    const { fake, client, polls } = setup();
    fake.store.alerts.push(
      alert("a1", "41", "2026-12-02T10:30:00Z"),
      alert("a2", "42", "2026-12-02T10:31:00Z"),
    );
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const a of client.alerts.subscribe(
      { cluster: "hpc1" },
      { intervalMs: 1, signal: stop.signal },
    )) {
      seen.push(`${a.id}:${a.state}`);
      if (seen.length === 2) {
        // Refreshed evidence and lastSeen at a later evaluation are not a change.
        fake.store.alerts[0] = alert("a1", "41", "2026-12-02T10:40:00Z", { message: "Still idle." });
        fake.store.alerts.push(alert("a3", "43", "2026-12-02T10:41:00Z"));
      }
      if (seen.length === 3) {
        fake.store.alerts[1] = alert("a2", "42", "2026-12-02T10:42:00Z", {
          state: "resolved",
          resolvedAt: "2026-12-02T10:42:00Z",
        });
      }
      if (seen.length === 4) stop.abort();
    }
    // Least recently seen first within a poll, so changes read in the order they happened.
    expect(seen).toEqual(["a1:firing", "a2:firing", "a3:firing", "a2:resolved"]);
    expect(polls()).toBeGreaterThanOrEqual(3);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/v1/alerts", query: { cluster: "hpc1" } });
  });

  it("stops quietly when aborted during the wait between polls", async () => {
    const { fake, client, polls } = setup();
    fake.store.alerts.push(alert("a1", "41", "2026-12-02T10:30:00Z"));
    const stop = new AbortController();
    const seen: string[] = [];
    const started = Date.now();
    setTimeout(() => stop.abort(), 50);
    for await (const a of client.alerts.subscribe({}, { intervalMs: 60_000, signal: stop.signal }))
      seen.push(a.id);
    expect(seen).toEqual(["a1"]);
    expect(polls()).toBe(1);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("polls every intervalMs, 30 s unless told, and refuses an interval that is not a number of ms", async () => {
    const { fake, client, polls } = setup();
    fake.store.alerts.push(alert("a1", "41", "2026-12-02T10:30:00Z"));
    const stop = new AbortController();
    const iterator = client.alerts.subscribe({}, { signal: stop.signal });
    expect((await iterator.next()).value?.id).toBe("a1");
    const next = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Still waiting out the default interval: no second poll yet.
    expect(polls()).toBe(1);
    stop.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    await expect(client.alerts.subscribe({}, { intervalMs: Number.NaN }).next()).rejects.toBeInstanceOf(
      RangeError,
    );
  });

  it("throws the typed error of a poll the server refuses", async () => {
    const { client } = setup("svc-token");
    await expect(client.alerts.subscribe({}, { intervalMs: 1 }).next()).rejects.toBeInstanceOf(
      PermissionError,
    );
  });
});
