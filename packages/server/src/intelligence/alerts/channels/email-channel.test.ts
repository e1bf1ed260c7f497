import type { AlertPreferences } from "@jobsight/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { defaultAlertPreferences } from "../../../data-plane/stores/alert-preference-store.js";
import type { UndeliveredAlert } from "../../../data-plane/stores/alert-store.js";
import { EmailChannel } from "./email-channel.js";
import { EmailRecipients } from "./email-recipients.js";
import { withPreferences } from "./preference-filter.js";
import { smtpMailer } from "./smtp-transport.js";
import { type SmtpSink, startSmtpSink } from "./test-support/smtp-sink.js";
import type { AlertDeliveries } from "./webhook-channel.js";

const sinks: SmtpSink[] = [];
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((s) => s.close()));
});

async function sink(auth?: { user: string; password: string }) {
  const s = await startSmtpSink(auth);
  sinks.push(s);
  return s;
}

function alert(n: number, user = "alice"): UndeliveredAlert {
  return {
    id: `a${n}`,
    cluster: "hpc1",
    jobId: String(4240 + n),
    user,
    rule: "gpus-idle",
    severity: "warning",
    state: "firing",
    firstSeen: "2026-12-02T10:00:00.000Z",
    lastSeen: "2026-12-02T10:30:00.000Z",
    message: "All 4 GPUs below 5% for 30 min.",
    evidence: [
      { kind: "metric", source: "nvidia-smi", text: "GPU 0 at 0% for 30 min" },
      { kind: "metric", source: "nvidia-smi", text: "GPU 1 at 1% for 30 min" },
    ],
    firedAt: "2026-12-02T10:00:00.000Z",
    deliveredTo: [],
  };
}

function deliveries(alerts: UndeliveredAlert[]): AlertDeliveries & { marks: string[] } {
  const marks: string[] = [];
  return {
    marks,
    undelivered: async (channels) =>
      alerts.filter((a) => !channels.every((c) => a.deliveredTo.includes(c))).map((a) => ({ ...a })),
    markDelivered: async (id, _firedAt, channel) => {
      const a = alerts.find((x) => x.id === id)!;
      a.deliveredTo = [...a.deliveredTo, channel];
      marks.push(`${id}:${channel}`);
    },
  };
}

const recipients = new EmailRecipients({
  domain: "lab.example.org",
  addresses: { bob: "robert@physics.example.org" },
});

describe("EmailChannel over a real SMTP server", () => {
  it("mails each alert once to the job's user, with the evidence and a link, authenticating", async () => {
    const smtp = await sink({ user: "jobsight", password: "s3cret" });
    const mailer = smtpMailer({
      host: "127.0.0.1",
      port: smtp.port,
      tls: "none",
      user: "jobsight",
      password: "s3cret",
      from: "Jobsight <jobsight@lab.example.org>",
    });
    const store = deliveries([alert(1), alert(2, "bob")]);
    const channel = new EmailChannel({ mailer, recipients, publicUrl: "https://jobsight.lab.example.org/" });
    expect(await channel.deliver(store)).toEqual({ sent: 2, failed: 0, deferred: 0 });
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 0 });
    expect(smtp.mails.map((m) => [m.from, m.to])).toEqual([
      ["jobsight@lab.example.org", ["alice@lab.example.org"]],
      ["jobsight@lab.example.org", ["robert@physics.example.org"]],
    ]);
    const [mail] = smtp.mails;
    expect(mail.subject).toBe("[Jobsight warning] gpus-idle on job 4241 (hpc1)");
    expect(mail.text).toContain("All 4 GPUs below 5% for 30 min.");
    expect(mail.text).toContain("  - GPU 1 at 1% for 30 min");
    expect(mail.text).toContain("https://jobsight.lab.example.org/report/jobs.html?id=4241&cluster=hpc1");
    expect(mail.headers.get("x-jobsight-alert")).toBe("a1");
  });

  it("fails without the right password, and never logs it", async () => {
    const smtp = await sink({ user: "jobsight", password: "s3cret" });
    const lines: string[] = [];
    const log = {
      info() {},
      error() {},
      warn: (o: Record<string, unknown>, m: string) => void lines.push(`${m} ${JSON.stringify(o)}`),
    };
    const mailer = smtpMailer({
      host: "127.0.0.1",
      port: smtp.port,
      tls: "none",
      user: "jobsight",
      password: "wr0ng-pw",
      from: "j@lab.example.org",
    });
    const channel = new EmailChannel({ mailer, recipients, log });
    expect(await channel.deliver(deliveries([alert(1)]))).toEqual({ sent: 0, failed: 1, deferred: 0 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("alert mail failed; the alert is sent again later");
    expect(lines.join()).not.toContain("wr0ng-pw");
  });

  it("keeps to the per-user hourly budget and retries a temporary failure after the back-off", async () => {
    const smtp = await sink();
    const mailer = smtpMailer({ host: "127.0.0.1", port: smtp.port, tls: "none", from: "j@lab.example.org" });
    let now = 0;
    const channel = new EmailChannel({
      mailer,
      recipients,
      maxPerUserPerHour: 2,
      retryDelayMs: 1000,
      now: () => now,
    });
    const store = deliveries([alert(1), alert(2), alert(3), alert(4, "bob")]);
    expect(await channel.deliver(store)).toEqual({ sent: 3, failed: 0, deferred: 1 });
    expect(smtp.mails.map((m) => m.to[0])).toEqual([
      "alice@lab.example.org",
      "alice@lab.example.org",
      "robert@physics.example.org",
    ]);
    now = 3_600_000;
    smtp.failNext(1);
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 1, deferred: 0 });
    now += 500;
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 1 });
    now += 500;
    expect(await channel.deliver(store)).toEqual({ sent: 1, failed: 0, deferred: 0 });
    expect(smtp.mails).toHaveLength(4);
  });

  it("records an alert of a user without an address as delivered, without mailing", async () => {
    const smtp = await sink();
    const mailer = smtpMailer({ host: "127.0.0.1", port: smtp.port, tls: "none", from: "j@lab.example.org" });
    const channel = new EmailChannel({ mailer, recipients: new EmailRecipients({}) });
    const store = deliveries([alert(1)]);
    expect(await channel.deliver(store)).toEqual({ sent: 0, failed: 0, deferred: 0 });
    expect(store.marks).toEqual(["a1:email"]);
    expect(smtp.mails).toEqual([]);
  });
});

describe("withPreferences", () => {
  const prefs = (map: Record<string, Partial<AlertPreferences>>) => ({
    forUsers: async (users: readonly string[]) =>
      new Map(users.filter((u) => map[u]).map((u) => [u, { ...defaultAlertPreferences(u), ...map[u] }])),
  });

  it("drops the alerts of users who opted out or chose other channels, and holds them in quiet hours", async () => {
    const store = deliveries([alert(1, "alice"), alert(2, "bob"), alert(3, "carol"), alert(4, "dave")]);
    const view = withPreferences(store, {
      channel: "email",
      preferences: prefs({
        bob: { enabled: false },
        carol: { channels: ["webhook"] },
        dave: { quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" } },
      }),
      defaults: defaultAlertPreferences,
      // 23:30 in Berlin.
      now: () => new Date("2026-12-02T22:30:00Z"),
    });
    expect((await view.undelivered(["email"])).map((a) => a.user)).toEqual(["alice"]);
    expect(store.marks).toEqual(["a2:email", "a3:email"]);
    // Dave's alert is still pending: shown once his quiet hours end.
    expect((await store.undelivered(["email"])).map((a) => a.user)).toEqual(["alice", "dave"]);
  });

  it("holds every alert when the preferences cannot be read", async () => {
    const store = deliveries([alert(1)]);
    const view = withPreferences(store, {
      channel: "webhook",
      preferences: { forUsers: async () => Promise.reject(new Error("database down")) },
      defaults: defaultAlertPreferences,
    });
    expect(await view.undelivered(["h1"])).toEqual([]);
    expect(store.marks).toEqual([]);
  });
});
