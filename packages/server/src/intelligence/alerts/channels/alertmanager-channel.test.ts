import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Alert } from "@jobsight/schemas";
import { afterEach, describe, expect, it } from "vitest";
import type { AlertChannelStore } from "./alert-channel.js";
import { AlertmanagerChannel } from "./alertmanager-channel.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** An HTTP server on 127.0.0.1 keeping each request's path, authorization and JSON body. */
async function receiver() {
  const got: {
    path: string;
    authorization?: string;
    body: { labels: Record<string, string>; endsAt: string }[];
  }[] = [];
  const server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => {
      got.push({ path: req.url ?? "", authorization: req.headers.authorization, body: JSON.parse(data) });
      res.end("");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { got, port: (server.address() as AddressInfo).port };
}

const alert = (jobId: string, extra: Partial<Alert> = {}): Alert => ({
  id: jobId,
  cluster: "hpc1",
  jobId,
  user: "alice",
  rule: "cores-idle",
  severity: "warning",
  state: "firing",
  firstSeen: "2026-12-02T10:00:00.000Z",
  lastSeen: "2026-12-02T10:30:00.000Z",
  message: "8 cores reserved, 0.2 used.",
  evidence: [{ kind: "metric", source: "cgroup:cpu.stat", text: "usage_usec rose 12 s in 30 min" }],
  ...extra,
});

function store(alerts: Alert[]): AlertChannelStore {
  return {
    list: async (q) => alerts.filter((a) => a.state === q.state),
    undelivered: async () => [],
    markDelivered: async () => {},
  };
}

describe("AlertmanagerChannel", () => {
  it("posts firing and recently resolved alerts to /api/v2/alerts, the URL's credentials as basic auth", async () => {
    const am = await receiver();
    const now = new Date("2026-12-02T10:31:00.000Z");
    const channel = new AlertmanagerChannel({
      urls: [`http://ops:s3cret@127.0.0.1:${am.port}/am/`],
      validForMs: 240_000,
      now: () => now,
    });
    const alerts = [
      alert("1"),
      alert("2", { state: "resolved", resolvedAt: "2026-12-02T10:30:00.000Z" }),
      // Resolved longer ago than an alert stays valid: Alertmanager has resolved it already.
      alert("3", { state: "resolved", resolvedAt: "2026-12-02T10:20:00.000Z" }),
    ];
    expect(await channel.deliver(store(alerts))).toEqual({ sent: 2, failed: 0, deferred: 0 });
    expect(am.got).toHaveLength(1);
    const [post] = am.got;
    expect(post.path).toBe("/am/api/v2/alerts");
    expect(post.authorization).toBe(`Basic ${Buffer.from("ops:s3cret").toString("base64")}`);
    expect(post.body.map((a) => [a.labels.job_id, a.endsAt])).toEqual([
      ["1", "2026-12-02T10:35:00.000Z"],
      ["2", "2026-12-02T10:30:00.000Z"],
    ]);
  });

  it("sends nothing when nothing fires or resolved lately", async () => {
    const am = await receiver();
    const channel = new AlertmanagerChannel({ urls: [`http://127.0.0.1:${am.port}`] });
    expect(await channel.deliver(store([]))).toEqual({ sent: 0, failed: 0, deferred: 0 });
    expect(am.got).toEqual([]);
  });
});
