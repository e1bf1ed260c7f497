import type { EvidenceRef } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { FiringAlert } from "../../../src/data-plane/stores/alert-store.js";
import { AlertmanagerChannel } from "../../../src/intelligence/alerts/channels/alertmanager-channel.js";
import { alertChannelsFromConfig } from "../../../src/intelligence/alerts/channels/channels-from-config.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";
import { type AlertmanagerServer, startAlertmanager } from "./support/alertmanager-server.js";

type GettableAlert = {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  status: { state: string };
};

const evidence: EvidenceRef[] = [
  { kind: "metric", source: "cgroup:memory.current", text: "memory.current rose to 14.9 GiB of 16 GiB" },
];
const memory = (jobId: string, user: string): FiringAlert => ({
  cluster: "hpc1",
  jobId,
  user,
  rule: "memory-near-limit",
  severity: "critical",
  message: `Memory of job ${jobId} at 93% of its limit and rising.`,
  evidence,
  projectedAt: new Date(Date.now() + 8 * 60_000).toISOString(),
});

describe("Alertmanager channel against a real Alertmanager (Debian's prometheus-alertmanager)", () => {
  let am: AlertmanagerServer;
  let fx: StorageFixture;

  const alertsIn = async (): Promise<GettableAlert[]> => {
    const res = await fetch(`${am.url}/api/v2/alerts`);
    expect(res.status).toBe(200);
    return res.json() as Promise<GettableAlert[]>;
  };

  beforeAll(async () => {
    // Installs the package with apt-get when missing: a failure fails the test with the reason.
    am = await startAlertmanager();
    fx = await openTestStorage("alertmanager");
  });

  afterAll(async () => {
    await am?.stop();
    await fx?.dispose();
  });

  it("posts firing alerts with the labels and annotations Alertmanager routes on, and resolves them", async () => {
    const now = new Date();
    await fx.storage.alerts.fire([memory("4242", "alice"), memory("4243", "bob")], now);
    // Configured the way a site does; the channel is the one the server would build.
    const config = parseServerConfig({
      objectStore: { dir: "/tmp/unused" },
      alerts: {
        intervalSeconds: 30,
        publicUrl: "https://jobsight.lab.example.org",
        alertmanager: { urls: [am.url] },
      },
    });
    const [channel] = alertChannelsFromConfig(config.alerts, fx.storage, {
      info() {},
      warn() {},
      error() {},
    });
    expect(channel.name).toBe("alertmanager");
    expect(await channel.deliver(fx.storage.alerts)).toEqual({ sent: 2, failed: 0, deferred: 0 });

    const received = await alertsIn();
    expect(received.map((a) => a.labels.job_id).sort()).toEqual(["4242", "4243"]);
    const alice = received.find((a) => a.labels.job_id === "4242")!;
    expect(alice.labels).toEqual({
      alertname: "memory-near-limit",
      cluster: "hpc1",
      job_id: "4242",
      user: "alice",
      severity: "critical",
      source: "jobsight",
    });
    expect(alice.annotations).toMatchObject({
      summary: "Memory of job 4242 at 93% of its limit and rising.",
      description: "- memory.current rose to 14.9 GiB of 16 GiB",
      evidence: "https://jobsight.lab.example.org/report/jobs.html?id=4242&cluster=hpc1",
    });
    expect(alice.generatorURL).toBe(alice.annotations.evidence);
    expect(alice.status.state).toBe("active");
    expect(Date.parse(alice.startsAt)).toBe(+now);
    // Valid for four evaluations (4 × 30 s), sent again at each one.
    const endsIn = Date.parse(alice.endsAt) - Date.now();
    expect(endsIn).toBeGreaterThan(100_000);
    expect(endsIn).toBeLessThanOrEqual(120_000);

    // Resending keeps one alert per job (Alertmanager deduplicates on the labels) and moves endsAt.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await channel.deliver(fx.storage.alerts)).toEqual({ sent: 2, failed: 0, deferred: 0 });
    const again = await alertsIn();
    expect(again).toHaveLength(2);
    expect(Date.parse(again.find((a) => a.labels.job_id === "4242")!.endsAt)).toBeGreaterThan(
      Date.parse(alice.endsAt),
    );

    // Alice's alert resolves: it is sent once more with its end, and Alertmanager drops it at once.
    const [id] = (await fx.storage.alerts.list({ user: "alice", limit: 1 })).map((a) => a.id);
    await fx.storage.alerts.resolve([id], new Date());
    expect(await channel.deliver(fx.storage.alerts)).toEqual({ sent: 2, failed: 0, deferred: 0 });
    expect((await alertsIn()).map((a) => a.labels.job_id)).toEqual(["4243"]);
  });

  it("counts an unreachable Alertmanager as failed, without throwing", async () => {
    const warnings: string[] = [];
    const channel = new AlertmanagerChannel({
      urls: ["http://user:pa55word@127.0.0.1:1"],
      timeoutMs: 2000,
      log: { info() {}, error() {}, warn: (o, m) => void warnings.push(`${m} ${JSON.stringify(o)}`) },
    });
    const report = await channel.deliver(fx.storage.alerts);
    expect(report.failed).toBeGreaterThan(0);
    expect(report.sent).toBe(0);
    expect(warnings.join()).toContain("alertmanager: sending alerts failed");
    expect(warnings.join()).not.toContain("pa55word");
  });
});
