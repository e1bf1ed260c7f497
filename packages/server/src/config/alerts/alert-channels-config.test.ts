import { describe, expect, it } from "vitest";
import { ConfigError } from "../config-error.js";
import { parseServerConfig } from "../parse-config.js";

function issuesOf(alerts: unknown): string[] {
  try {
    parseServerConfig({ alerts }, { cwd: "/srv" });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("alerts.email, alerts.alertmanager, alerts.digest", () => {
  it("has no mail and no Alertmanager by default, and the digest on for when mail is set", () => {
    const alerts = parseServerConfig({}, { cwd: "/srv" }).alerts!;
    expect(alerts.publicUrl).toBeUndefined();
    expect(alerts.email).toBeUndefined();
    expect(alerts.alertmanager).toEqual({ urls: [], timeoutMs: 5000 });
    expect(alerts.digest).toEqual({ enabled: true, hourUtc: 7, maxJobs: 5 });
  });

  it("reads SMTP, the address map and the secret password from the environment's strings", () => {
    const channels = parseServerConfig(
      {
        alerts: {
          email: {
            smtp: { host: "smtp.lab.example.org", port: "465", tls: "tls", user: "jobsight", password: "pw" },
            from: "Jobsight <jobsight@lab.example.org>",
            domain: "lab.example.org",
            addresses: ["bob=robert@physics.example.org"],
          },
          alertmanager: { urls: "http://am:9093" },
        },
      },
      { cwd: "/srv" },
    ).alerts!;
    expect(channels.email).toEqual({
      smtp: {
        host: "smtp.lab.example.org",
        port: 465,
        tls: "tls",
        user: "jobsight",
        password: "pw",
        timeoutMs: 10_000,
      },
      from: "Jobsight <jobsight@lab.example.org>",
      domain: "lab.example.org",
      addresses: ["bob=robert@physics.example.org"],
      maxPerMinute: 30,
      maxPerUserPerHour: 6,
    });
    expect(channels.alertmanager.urls).toEqual(["http://am:9093"]);
  });

  it("reports every problem as path: message, never a credential's text", () => {
    const issues = issuesOf({
      publicUrl: "jobsight.lab",
      email: { smtp: { host: "smtp", tls: "ssl", password: "hunter2" }, addresses: ["alice", "bob=nowhere"] },
      alertmanager: { urls: ["am:9093"], extra: 1 },
      digest: { hourUtc: 24 },
    });
    expect(issues.join("\n")).not.toContain("hunter2");
    expect(issues).toEqual([
      "alerts.digest.hourUtc: must be at most 23, got 24",
      'alerts.email.smtp.tls: must be one of starttls, tls, none, got "ssl"',
      "alerts.alertmanager.extra: is not a known setting",
      "alerts.email.from: is required when alerts.email.smtp.host is set",
      "alerts.email.addresses[0]: must be user=address, e.g. alice=alice@lab.example.org",
      "alerts.email.addresses[1]: must be user=address, e.g. alice=alice@lab.example.org",
      "alerts.email.smtp.password: needs alerts.email.smtp.user",
      "alerts.publicUrl: must be an http(s) URL",
      "alerts.alertmanager.urls[0]: must be an http(s) URL",
    ]);
    expect(issuesOf({ email: { smtp: { host: "smtp" }, from: "j@lab.example.org" } })).toEqual([
      "alerts.email.domain: or alerts.email.addresses is required when alerts.email.smtp.host is set",
    ]);
  });
});
