import type { JobRecord, JobSpec, ResourcePrediction, UsageSample } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertPredictionRows, predictionRows } from "../../../src/data-plane/stores/prediction-store.js";
import { EmailRecipients } from "../../../src/intelligence/alerts/channels/email-recipients.js";
import { smtpMailer } from "../../../src/intelligence/alerts/channels/smtp-transport.js";
import {
  type SmtpSink,
  startSmtpSink,
} from "../../../src/intelligence/alerts/channels/test-support/smtp-sink.js";
import { DIGEST_LOCK, DigestSender } from "../../../src/intelligence/alerts/digest/digest-sender.js";
import { linkKeyOf } from "../../../src/intelligence/recording/link-predictions.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";

const GIB = 2 ** 30;
const HOUR = 3600;

function ended(
  jobId: string,
  user: string,
  spec: Partial<JobSpec>,
  at: string,
  peaks: JobRecord["peaks"],
): JobRecord {
  const end = new Date(Date.parse(at) + 2 * HOUR * 1000).toISOString();
  return {
    cluster: "hpc1",
    jobId,
    phase: "ended",
    source: "slurm-controller",
    spec: { cluster: "hpc1", scheduler: "slurm", user, requested: {}, ...spec },
    submittedAt: at,
    startedAt: at,
    endedAt: end,
    outcome: { state: "COMPLETED", exitCode: 0 },
    peaks: { runTimeSeconds: 2 * HOUR, ...peaks },
  };
}

// Alice's training job of the week: 8 cores, 64 GiB and 2 GPUs held 2 h; 1 core, 12 GiB, 1 GPU used.
const TRAIN = ended(
  "a-train",
  "alice",
  {
    jobName: "train",
    executable: "python train.py",
    requested: { cores: 8, memoryBytes: 64 * GIB, gpus: 2, walltimeSeconds: 4 * HOUR },
  },
  "2026-12-02T08:00:00.000Z",
  { cpuTimeSeconds: 2 * HOUR, memoryBytes: 12 * GIB, gpusUsed: 1 },
);
// A small job that used what it asked for; and one that ended the week before (not in the digest).
const SMALL = ended(
  "a-small",
  "alice",
  { requested: { cores: 1, memoryBytes: 2 * GIB } },
  "2026-12-03T08:00:00.000Z",
  {
    cpuTimeSeconds: 2 * HOUR,
    memoryBytes: 2 * GIB,
  },
);
const OLD = ended(
  "a-old",
  "alice",
  { requested: { cores: 64, memoryBytes: 512 * GIB } },
  "2026-11-20T08:00:00.000Z",
  {
    cpuTimeSeconds: 60,
    memoryBytes: GIB,
  },
);
const BOBS = ended(
  "b-1",
  "bob",
  { requested: { cores: 4, memoryBytes: 8 * GIB } },
  "2026-12-04T08:00:00.000Z",
  {
    cpuTimeSeconds: HOUR,
    memoryBytes: GIB,
  },
);
const CAROLS = ended(
  "c-1",
  "carol",
  { requested: { cores: 2, memoryBytes: 4 * GIB } },
  "2026-12-04T08:00:00.000Z",
  {
    cpuTimeSeconds: HOUR,
    memoryBytes: GIB,
  },
);

// The training job's CPU samples: one core busy all along, every 10 minutes for its 2 hours.
const samples: UsageSample[] = Array.from({ length: 13 }, (_, i) => ({
  cluster: "hpc1",
  jobId: "a-train",
  node: "gpu-01",
  time: new Date(Date.parse(TRAIN.startedAt!) + i * 600_000).toISOString(),
  memory: { currentBytes: 12 * GIB, limitBytes: 64 * GIB },
  cpu: { usageSeconds: i * 600, userSeconds: i * 600 },
}));

const ok = (resource: "memory" | "cores" | "gpus" | "walltime", value: number): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "memory"
      ? "bytes"
      : resource === "walltime"
        ? "seconds"
        : resource === "gpus"
          ? "devices"
          : "cores",
  value,
  low: value / 2,
  high: value,
  nominalLevel: 0.9,
  confidence: 0.9,
  evidence: { group: "user=alice,executable=python train.py", jobs: 40 },
});

describe("the weekly digest, mailed to a real SMTP server from stored jobs, samples and advice", () => {
  let fx: StorageFixture;
  let smtp: SmtpSink;
  let now = new Date("2026-12-07T08:00:00Z");
  let sender: DigestSender;

  beforeAll(async () => {
    fx = await openTestStorage("digest");
    smtp = await startSmtpSink();
    expect(await fx.storage.jobs.upsert([TRAIN, SMALL, OLD, BOBS, CAROLS])).toMatchObject({ accepted: 5 });
    expect(await fx.storage.samples.insert(samples)).toMatchObject({ accepted: samples.length });
    // The advice shown for the training job's submission just before it was submitted.
    await insertPredictionRows(
      fx.storage.pool,
      predictionRows([
        {
          answer: {
            id: "advice-1",
            createdAt: "2026-12-02T07:59:00.000Z",
            mode: "live",
            modelVersion: "m-7",
            cluster: "hpc1",
            user: "alice",
            resources: [],
          },
          resources: [ok("memory", 16 * GIB), ok("cores", 2), ok("gpus", 1), ok("walltime", 3 * HOUR)],
          recommendations: [],
          spec: TRAIN.spec,
          linkKey: linkKeyOf(TRAIN.spec),
          requestedBy: "alice",
        },
      ]),
    );
    await fx.storage.alertPreferences.set("bob", { enabled: true, channels: ["email"], digest: false }, now);
    await fx.storage.alertPreferences.set(
      "carol",
      {
        enabled: true,
        channels: ["email"],
        digest: true,
        quietHours: { start: "07:00", end: "09:00", timeZone: "UTC" },
      },
      now,
    );
    sender = new DigestSender({
      storage: fx.storage,
      mailer: smtpMailer({
        host: "127.0.0.1",
        port: smtp.port,
        tls: "none",
        from: "jobsight@lab.example.org",
      }),
      recipients: new EmailRecipients({ domain: "lab.example.org" }),
      publicUrl: "https://jobsight.lab.example.org",
      now: () => now,
    });
  });

  afterAll(async () => {
    await sender?.stop();
    await smtp?.close();
    await fx?.dispose();
  });

  it("waits for Monday's hour, then mails each user their week once, holding those in quiet hours", async () => {
    now = new Date("2026-12-07T06:59:00Z");
    expect(await sender.sendDue()).toMatchObject({ ran: false, sent: 0 });

    now = new Date("2026-12-07T08:00:00Z");
    expect(await sender.sendDue()).toEqual({ ran: true, sent: 1, skipped: 1, held: 1, failed: 0 });
    expect(smtp.mails.map((m) => m.to)).toEqual([["alice@lab.example.org"]]);
    const { subject, text } = smtp.mails[0];
    expect(subject).toBe("[Jobsight] Your week: cores 22% used, 2 jobs");
    expect(text).toContain("Your jobs from 2026-11-30 to 2026-12-06 (UTC): 2 ended.");
    // 8 cores × 2 h + 1 core × 2 h reserved; 2 h + 2 h of CPU used.
    expect(text).toContain("Cores:  22% — 4.0 of 18.0 core-hours");
    expect(text).toContain("Memory: 21% — 28.0 of 132 GiB-hours");
    expect(text).toContain("GPUs:   50% — 2.0 of 4.0 GPU-hours");
    expect(text).toContain("14.0 core-hours, 104 GiB-hours of memory, 2.0 GPU-hours");
    // The training job's samples: 8 cores held for 2 h, one of them busy. No GPU readings: no GPU figure.
    expect(text).toMatch(/Idle by the samples: 14\.0 core-hours\n/);
    expect(text).toContain("Job a-train on hpc1: 14.0 core-hours, 104 GiB-hours, 2.0 GPU-hours unused");
    expect(text).toContain("memory: 64 GiB → 16 GiB");
    expect(text).toContain("cores: 8 cores → 2 cores");
    expect(text).toContain("gpus: 2 GPUs → 1 GPUs");
    expect(text).toContain("walltime: 4:00 h → 3:00 h");
    expect(text).toContain("https://jobsight.lab.example.org/report/jobs.html?id=a-train&cluster=hpc1");
    expect(text).not.toContain("a-old");

    // Again within the hour: nothing new for Alice or Bob; Carol's quiet hours still hold hers.
    expect(await sender.sendDue()).toEqual({ ran: true, sent: 0, skipped: 0, held: 1, failed: 0 });
    now = new Date("2026-12-07T09:30:00Z");
    expect(await sender.sendDue()).toEqual({ ran: true, sent: 1, skipped: 0, held: 0, failed: 0 });
    expect(smtp.mails.map((m) => m.to[0])).toEqual(["alice@lab.example.org", "carol@lab.example.org"]);
    // Every digest of the week handled: later checks do not even look.
    expect(await sender.sendDue()).toMatchObject({ ran: false });
    const { rows } = await fx.storage.pool.query("SELECT user_name FROM alert_digests ORDER BY user_name");
    expect(rows.map((r) => r.user_name)).toEqual(["alice", "bob", "carol"]);
  });

  it("leaves the week to the replica holding the digest lock", async () => {
    await fx.storage.pool.query("DELETE FROM alert_digests");
    const other = new DigestSender({
      storage: fx.storage,
      mailer: { send: async () => Promise.reject(new Error("must not send")) },
      recipients: new EmailRecipients({ domain: "lab.example.org" }),
      now: () => new Date("2026-12-07T08:00:00Z"),
    });
    const holder = await fx.storage.pool.connect();
    try {
      await holder.query("SELECT pg_advisory_lock($1)", [DIGEST_LOCK]);
      expect(await other.sendDue()).toEqual({ ran: false, sent: 0, skipped: 0, held: 0, failed: 0 });
      await holder.query("SELECT pg_advisory_unlock($1)", [DIGEST_LOCK]);
    } finally {
      holder.release();
    }
    // With the lock free, a failing mail is counted and left for the next check, never thrown.
    expect(await other.sendDue()).toEqual({ ran: true, sent: 0, skipped: 1, held: 1, failed: 1 });
  });

  it("prices the week's waste and each job's savings at the site's rates", async () => {
    await fx.storage.pool.query("DELETE FROM alert_digests");
    const mails: { to: string; text: string }[] = [];
    const priced = new DigestSender({
      storage: fx.storage,
      mailer: { send: async (m) => void mails.push({ to: m.to, text: m.text }) },
      recipients: new EmailRecipients({ domain: "lab.example.org" }),
      rates: { currency: "EUR", coreHour: 0.05, memoryGibHour: 0.01, gpuHour: 1.5 },
      now: () => new Date("2026-12-07T10:00:00Z"),
    });
    expect(await priced.sendDue()).toMatchObject({ ran: true, sent: 2 });
    const alice = mails.find((m) => m.to === "alice@lab.example.org")!.text;
    // 14 core-hours, 104 GiB-hours and 2 GPU-hours unused; the samples saw the 14 core-hours idle.
    expect(alice).toContain("  In money: €4.74 (cores €0.70, memory €1.04, GPUs €3.00) unused");
    expect(alice).toContain("  Idle by the samples, in money: €0.70");
    // 8 → 2 cores with 1 used, 64 → 16 GiB with 12 GiB peak, 2 → 1 GPUs with 1 used, over 2 h.
    expect(alice).toContain(
      "    These edits would have saved 12.0 core-hours, 96.0 GiB-hours, 2.0 GPU-hours: €4.56 (cores €0.60, memory €0.96, GPUs €3.00).",
    );
  });

  it("shows amounts only without rates", () => {
    expect(smtp.mails[0].text).not.toMatch(/€|In money/);
    expect(smtp.mails[0].text).toContain(
      "These edits would have saved 12.0 core-hours, 96.0 GiB-hours, 2.0 GPU-hours.",
    );
  });
});
