import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AlertPreferences, compileValidator, type EvidenceRef } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { FiringAlert } from "../../../src/data-plane/stores/alert-store.js";
import {
  alertChannelsFromConfig,
  preferenceView,
} from "../../../src/intelligence/alerts/channels/channels-from-config.js";
import {
  type SmtpSink,
  startSmtpSink,
} from "../../../src/intelligence/alerts/channels/test-support/smtp-sink.js";
import { WebhookChannel } from "../../../src/intelligence/alerts/channels/webhook-channel.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";
import { bearer, PRINCIPALS } from "../test-server-config.js";

const { alice, bob, platform, platformHpc2 } = PRINCIPALS;
const validPreferences = compileValidator(AlertPreferences);
const silent = { info() {}, warn() {}, error() {} };
const evidence: EvidenceRef[] = [{ kind: "metric", source: "nvidia-smi", text: "GPU 0 at 0% for 30 min" }];
const firing = (jobId: string, user: string): FiringAlert => ({
  cluster: "hpc1",
  jobId,
  user,
  rule: "gpus-idle",
  severity: "warning",
  message: `Job ${jobId}'s GPUs are idle.`,
  evidence,
});
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe("alert preferences: the API and what the channels do with them", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let smtp: SmtpSink;
  let chat: Server;
  let chatUrl: string;
  const posts: { text: string }[] = [];

  const call = (method: "GET" | "PUT", url: string, token?: string, payload?: object) =>
    app.inject({ method, url, payload, headers: token ? bearer(token) : {} });

  beforeAll(async () => {
    fx = await openTestStorage("alert_prefs");
    objects = await mkdtemp(join(tmpdir(), "jobsight-prefs-"));
    smtp = await startSmtpSink();
    chat = createServer((req, res) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => {
        posts.push(JSON.parse(data));
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => chat.listen(0, "127.0.0.1", resolve));
    chatUrl = `http://127.0.0.1:${(chat.address() as AddressInfo).port}/hooks/team`;
    const config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { enabled: false },
      http: { logLevel: "silent" },
      auth: { tokens: [alice, bob, platform, platformHpc2] },
      alerts: { enabled: false },
    });
    app = await buildApp({ config, storage: fx.storage });
  });

  afterAll(async () => {
    await app?.close();
    await smtp?.close();
    await new Promise((resolve) => chat?.close(resolve));
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("lets a researcher read and set only their own preferences", async () => {
    const defaults = await call("GET", "/v1/alerts/preferences", alice.token);
    expect(defaults.statusCode).toBe(200);
    expect(defaults.json()).toEqual({
      user: "alice",
      enabled: true,
      channels: ["email", "webhook"],
      digest: true,
    });

    const body = {
      enabled: true,
      channels: ["email"],
      digest: false,
      quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" },
    };
    const set = await call("PUT", "/v1/alerts/preferences", alice.token, body);
    expect(set.statusCode, set.body).toBe(200);
    expect(validPreferences.validate(set.json()).ok).toBe(true);
    expect(set.json()).toMatchObject({ user: "alice", ...body, updatedAt: expect.any(String) });
    expect((await call("GET", "/v1/alerts/preferences", alice.token)).json()).toEqual(set.json());

    // Bob cannot read or change Alice's, and his own stay the defaults.
    const peek = await call("GET", "/v1/alerts/preferences?user=alice", bob.token);
    expect(peek.statusCode).toBe(403);
    expect(peek.json()).toMatchObject({ code: "FORBIDDEN", errors: [{ path: "/query/user" }] });
    const change = await call("PUT", "/v1/alerts/preferences?user=alice", bob.token, {
      ...body,
      enabled: false,
    });
    expect(change.statusCode).toBe(403);
    expect((await call("GET", "/v1/alerts/preferences", alice.token)).json().enabled).toBe(true);
    expect((await call("GET", "/v1/alerts/preferences", bob.token)).json()).not.toHaveProperty("updatedAt");

    // The platform team reads anyone's and sets them site-wide; a cluster-bound token only reads.
    expect((await call("GET", "/v1/alerts/preferences?user=alice", platform.token)).json()).toEqual(
      set.json(),
    );
    const forBob = await call("PUT", "/v1/alerts/preferences?user=bob", platform.token, {
      ...body,
      channels: [],
    });
    expect(forBob.statusCode).toBe(200);
    expect((await call("GET", "/v1/alerts/preferences", bob.token)).json().channels).toEqual([]);
    expect((await call("GET", "/v1/alerts/preferences?user=bob", platformHpc2.token)).statusCode).toBe(200);
    expect((await call("PUT", "/v1/alerts/preferences?user=bob", platformHpc2.token, body)).statusCode).toBe(
      403,
    );
  });

  it("refuses bad input with 400 naming the field, and no token with 401", async () => {
    const base = { enabled: true, channels: ["email"], digest: true };
    const zone = await call("PUT", "/v1/alerts/preferences", alice.token, {
      ...base,
      quietHours: { start: "22:00", end: "07:00", timeZone: "Mars/Olympus" },
    });
    expect(zone.statusCode).toBe(400);
    expect(zone.json()).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ path: "/quietHours/timeZone" }],
    });
    const clock = await call("PUT", "/v1/alerts/preferences", alice.token, {
      ...base,
      quietHours: { start: "24:00", end: "07:00", timeZone: "UTC" },
    });
    expect(clock.statusCode).toBe(400);
    expect(clock.json().errors.map((e: { path: string }) => e.path)).toContain("/quietHours/start");
    const channel = await call("PUT", "/v1/alerts/preferences", alice.token, {
      ...base,
      channels: ["pager"],
    });
    expect(channel.statusCode).toBe(400);
    expect((await call("PUT", "/v1/alerts/preferences", alice.token, { ...base, extra: 1 })).statusCode).toBe(
      400,
    );
    expect((await call("GET", "/v1/alerts/preferences")).statusCode).toBe(401);
  });

  it("mails and posts each user's alerts as their preferences say: opt-out, channels, quiet hours", async () => {
    const now = Date.now();
    const put = (user: string, body: object) =>
      call("PUT", `/v1/alerts/preferences?user=${user}`, platform.token, body).then((r) => {
        expect(r.statusCode, r.body).toBe(200);
      });
    await put("alice", { enabled: true, channels: ["email"], digest: true });
    await put("bob", { enabled: false, channels: ["email", "webhook"], digest: true });
    // Carol is in her quiet hours now (an hour either side of the current time, UTC).
    const quiet = { start: hhmm(now - 3_600_000), end: hhmm(now + 3_600_000), timeZone: "UTC" };
    await put("carol", { enabled: true, channels: ["email", "webhook"], digest: true, quietHours: quiet });
    // Dave never set any: the defaults, every channel.
    await fx.storage.alerts.fire(
      [firing("a-1", "alice"), firing("b-1", "bob"), firing("c-1", "carol"), firing("d-1", "dave")],
      new Date(now),
    );

    const config = parseServerConfig({
      objectStore: { dir: objects },
      alerts: {
        email: {
          smtp: { host: "127.0.0.1", port: smtp.port, tls: "none" },
          from: "Jobsight <jobsight@lab.example.org>",
          domain: "lab.example.org",
        },
      },
    });
    const channels = alertChannelsFromConfig(config.alerts, fx.storage, silent);
    expect(channels.map((c) => c.name)).toEqual(["email"]);
    const [email] = channels;
    const webhook = new WebhookChannel({
      urls: [chatUrl],
      view: preferenceView("webhook", fx.storage, silent),
    });

    expect(await email.deliver(fx.storage.alerts)).toEqual({ sent: 2, failed: 0, deferred: 0 });
    expect(await webhook.deliver(fx.storage.alerts)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(smtp.mails.map((m) => [m.to[0], m.subject]).sort()).toEqual([
      ["alice@lab.example.org", "[Jobsight warning] gpus-idle on job a-1 (hpc1)"],
      ["dave@lab.example.org", "[Jobsight warning] gpus-idle on job d-1 (hpc1)"],
    ]);
    expect(posts.map((p) => p.text.match(/job (\S+)/)?.[1])).toEqual(["d-1"]);

    // Nothing new while Carol is quiet; once she lifts her quiet hours, her held alert goes out.
    expect(await email.deliver(fx.storage.alerts)).toEqual({ sent: 0, failed: 0, deferred: 0 });
    await put("carol", { enabled: true, channels: ["email", "webhook"], digest: true });
    expect(await email.deliver(fx.storage.alerts)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(await webhook.deliver(fx.storage.alerts)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(smtp.mails.at(-1)?.to).toEqual(["carol@lab.example.org"]);
    expect(posts.at(-1)?.text).toContain("job c-1");
    // Bob opted out: his alert was recorded as handled on both channels, never sent.
    const { rows } = await fx.storage.pool.query(
      "SELECT job_id, cardinality(delivered_to) AS n FROM alerts WHERE user_name = 'bob'",
    );
    expect(rows).toEqual([{ job_id: "b-1", n: 2 }]);
  });
});
