import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Alert } from "@jobsight/schemas";
import { afterEach, describe, expect, it } from "vitest";
import type { UndeliveredAlert } from "../../../data-plane/stores/alert-store.js";
import { type AlertDeliveries, WebhookChannel } from "./webhook-channel.js";

type Received = {
  path: string;
  contentType: string | undefined;
  body: { text: string; attachments: unknown[] };
};

/** A chat webhook on 127.0.0.1 (a port of the system's choosing) answering with `status()`. */
async function chatServer(status: () => number = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let data = "";
    req.on("data", (c) => {
      data += c;
    });
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"],
        body: JSON.parse(data),
      });
      res.statusCode = status();
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { received, url: (path: string) => `http://127.0.0.1:${port}${path}` };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

function alert(n: number, extra: Partial<Alert> = {}): UndeliveredAlert {
  return {
    id: `a${n}`,
    cluster: "hpc1",
    jobId: String(4240 + n),
    user: "alice",
    rule: "memory-near-limit",
    severity: "critical",
    state: "firing",
    firstSeen: "2026-12-02T10:00:00.000Z",
    lastSeen: "2026-12-02T10:15:00.000Z",
    projectedAt: "2026-12-02T10:20:00.000Z",
    message: "Memory on n1 is at 95% of its 9.8 GiB limit.",
    evidence: [{ kind: "metric", source: "cgroup:memory.current", text: "memory rose to 9.3 GiB" }],
    firedAt: "2026-12-02T10:00:00.000Z",
    deliveredTo: [],
    ...extra,
  };
}

/** The alerts table's delivery columns, in memory: firing alerts and who was told of each. */
function deliveries(alerts: UndeliveredAlert[]): AlertDeliveries & { marks: string[] } {
  const marks: string[] = [];
  return {
    marks,
    undelivered: async (channels) =>
      alerts
        .filter((a) => !channels.every((c) => a.deliveredTo.includes(c)))
        .map((a) => ({ ...a, deliveredTo: [...a.deliveredTo] })),
    markDelivered: async (id, firedAt, channel) => {
      const a = alerts.find((x) => x.id === id && x.firedAt === firedAt)!;
      if (!a.deliveredTo.includes(channel)) a.deliveredTo.push(channel);
      marks.push(`${id}:${channel.slice(0, 8)}`);
    },
  };
}

const logs = () => {
  const lines: { object: Record<string, unknown>; message: string }[] = [];
  const push = (object: Record<string, unknown>, message: string) => lines.push({ object, message });
  return { lines, log: { info: push, warn: push, error: push } };
};

describe("WebhookChannel", () => {
  it("posts a Slack/Mattermost-compatible message once per alert and URL, not at every delivery", async () => {
    const chat = await chatServer();
    const other = await chatServer();
    const store = deliveries([alert(1)]);
    const channel = new WebhookChannel({ urls: [chat.url("/hooks/secret-1"), other.url("/hooks/secret-2")] });
    expect(await channel.deliver(store)).toEqual({ sent: 2, failed: 0, deferred: 0 });
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 0 });
    expect(chat.received).toHaveLength(1);
    expect(other.received).toHaveLength(1);
    const { path, contentType, body } = chat.received[0];
    expect(path).toBe("/hooks/secret-1");
    expect(contentType).toBe("application/json");
    expect(body.text).toBe(
      "[CRITICAL] memory-near-limit on job 4241 (hpc1, alice): Memory on n1 is at 95% of its 9.8 GiB limit.",
    );
    expect(body.attachments).toEqual([
      expect.objectContaining({
        color: "#d0021b",
        title: "memory-near-limit on job 4241 (hpc1, alice)",
        text: "Memory on n1 is at 95% of its 9.8 GiB limit.\n• memory rose to 9.3 GiB",
        fields: expect.arrayContaining([
          { title: "Limit reached at", value: "2026-12-02T10:20:00.000Z", short: true },
        ]),
      }),
    ]);
  });

  it("sends at most maxPerMinute per URL and the rest when the minute has passed", async () => {
    const chat = await chatServer();
    const store = deliveries([alert(1), alert(2), alert(3)]);
    let now = 1_000_000;
    const channel = new WebhookChannel({ urls: [chat.url("/h")], maxPerMinute: 2, now: () => now });
    expect(await channel.deliver(store)).toEqual({ sent: 2, failed: 0, deferred: 1 });
    now += 30_000;
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 1 });
    now += 30_001;
    expect(await channel.deliver(store)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(chat.received.map((r) => r.body.text.match(/job (\d+)/)?.[1])).toEqual(["4241", "4242", "4243"]);
  });

  it("logs a failure without the URL's secret, backs off, and sends the alert again later", async () => {
    let status = 503;
    const chat = await chatServer(() => status);
    const store = deliveries([alert(1)]);
    const { lines, log } = logs();
    let now = 0;
    const channel = new WebhookChannel({
      urls: [chat.url("/hooks/T0/B0/s3cr3t")],
      retryDelayMs: 1000,
      log,
      now: () => now,
    });
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 1, deferred: 0 });
    expect(store.marks).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0].message).toBe("alert webhook failed; the alert is sent again later");
    expect(lines[0].object).toMatchObject({ reason: "HTTP 503", failures: 1, retryInMs: 1000 });
    expect(JSON.stringify(lines)).not.toContain("s3cr3t");
    // Within the back-off: not tried.
    now = 500;
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 1 });
    status = 200;
    now = 1000;
    expect(await channel.deliver(store)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(chat.received).toHaveLength(2);
  });

  it("never throws: an unreachable URL and a failing store are logged and counted", async () => {
    const { lines, log } = logs();
    const channel = new WebhookChannel({ urls: ["http://127.0.0.1:1/hook"], timeoutMs: 2000, log });
    expect(await channel.deliver(deliveries([alert(1)]))).toEqual({ sent: 0, failed: 1, deferred: 0 });
    const broken: AlertDeliveries = {
      undelivered: async () => {
        throw new Error("database down");
      },
      markDelivered: async () => {},
    };
    expect(await channel.deliver(broken)).toEqual({ sent: 0, failed: 0, deferred: 0 });
    expect(lines.map((l) => l.message)).toEqual([
      "alert webhook failed; the alert is sent again later",
      "alert webhooks: could not read the alerts to send",
    ]);
  });
});
