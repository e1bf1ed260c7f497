import type { CostRates } from "@jobsight/schemas";
import { withTryAdvisoryLock } from "../../../data-plane/storage/advisory-lock.js";
import type { DataPlaneStorage } from "../../../data-plane/storage/storage.js";
import { defaultAlertPreferences } from "../../../data-plane/stores/alert-preference-store.js";
import { BackgroundLoop } from "../../background-loop.js";
import type { ServiceLogger } from "../../service-options.js";
import type { EmailRecipients } from "../channels/email-recipients.js";
import { inQuietHours } from "../channels/quiet-hours.js";
import type { Mailer } from "../channels/smtp-transport.js";
import { digestMail } from "./digest-mail.js";
import { lastWholeWeek } from "./digest-week.js";
import { weeklyDigests } from "./weekly-digest.js";

/** One server at a time sends the weekly digests (the others skip the tick). */
export const DIGEST_LOCK = 0x64677374; // "dgst"

const HOUR_MS = 3_600_000;

/** Options of {@link DigestSender}. */
export type DigestSenderOptions = {
  /** Jobs, samples and advice read; preferences and the ledger of digests sent. */
  storage: Pick<DataPlaneStorage, "pool" | "jobs" | "alertPreferences">;
  /** Sends the mails (see `smtpMailer`). */
  mailer: Mailer;
  /** The address of each user. */
  recipients: EmailRecipients;
  /** The server's URL as users open it, for links to the jobs' pages. @default undefined (no links) */
  publicUrl?: string;
  /** The hour (UTC) of Monday from which the past week's digests go out. @default 7 */
  hourUtc?: number;
  /** Most jobs (worst first) each digest lists. @default 5 */
  maxJobs?: number;
  /** The site's rates (`cost.*`): waste and savings in money. @default undefined (amounts only) */
  rates?: CostRates;
  /** Most digests mailed per minute (the others wait their turn in the same run). @default 30 */
  maxPerMinute?: number;
  /** Milliseconds between two checks for digests due. @default 3600000 */
  intervalMs?: number;
  /** @default no-op */
  log?: ServiceLogger;
  /** The clock. @default () => new Date() */
  now?: () => Date;
  /** Waits between two mails to keep to `maxPerMinute`. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
};

/** What one {@link DigestSender.sendDue} did. */
export type DigestReport = {
  /** False when another server held the lock, or the week's digests were not due yet. */
  ran: boolean;
  sent: number;
  /** Users who turned the digest off or have no address (recorded: not looked at again). */
  skipped: number;
  /** In the user's quiet hours: sent at a later check. */
  held: number;
  failed: number;
};

const silent: ServiceLogger = { info() {}, warn() {}, error() {} };

/**
 * Mails each user, once a week, the digest of their jobs that ended in the past week (Monday to
 * Monday, UTC): efficiency, waste and the edits that would have saved it (see `weeklyDigests`).
 * Checks every `intervalMs`; from Monday `hourUtc` on, it sends the digests not yet sent, recording
 * each in `alert_digests` so restarts and other replicas (one at a time, under an advisory lock)
 * never send one twice. A user in their quiet hours gets theirs at a later check; one who turned
 * the digest off gets none. Runs in the background without ever throwing into the server.
 *
 * @example
 * ```ts
 * const digests = new DigestSender({ storage, mailer, recipients });
 * digests.start();
 * await digests.stop();
 * ```
 */
export class DigestSender {
  readonly #o: DigestSenderOptions;
  readonly #log: ServiceLogger;
  readonly #loop: BackgroundLoop;
  /** The week whose digests were all handled by this server: no need to look again. */
  #doneWeek: number | undefined;

  constructor(options: DigestSenderOptions) {
    this.#o = options;
    this.#log = options.log ?? silent;
    this.#loop = new BackgroundLoop({
      intervalMs: options.intervalMs ?? HOUR_MS,
      run: async () => void (await this.sendDue()),
      onError: (error, failures) => this.#log.error({ err: error, failures }, "weekly digest failed"),
    });
  }

  /** Starts checking every interval (the first after one interval). */
  start(): void {
    this.#loop.start();
  }

  /** Stops the schedule and waits for a run in progress. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /**
   * Sends the past week's digests not yet sent, if they are due, under the digest lock.
   *
   * @throws what the storage throws; the schedule catches and logs it.
   */
  async sendDue(): Promise<DigestReport> {
    const none: DigestReport = { ran: false, sent: 0, skipped: 0, held: 0, failed: 0 };
    const now = (this.#o.now ?? (() => new Date()))();
    const week = lastWholeWeek(now);
    if (+now < +week.end + (this.#o.hourUtc ?? 7) * HOUR_MS || this.#doneWeek === +week.start) return none;
    const { pool } = this.#o.storage;
    // As the alert monitor: with a pool of one, the lock's connection would starve the run.
    if ((pool.options?.max ?? 10) < 2) return this.#send(week, now);
    const result = await withTryAdvisoryLock(pool, DIGEST_LOCK, () => this.#send(week, now));
    return result.locked ? result.value : none;
  }

  async #send(week: ReturnType<typeof lastWholeWeek>, now: Date): Promise<DigestReport> {
    const { storage } = this.#o;
    const report: DigestReport = { ran: true, sent: 0, skipped: 0, held: 0, failed: 0 };
    const digests = await weeklyDigests(storage, week, { maxJobs: this.#o.maxJobs, rates: this.#o.rates });
    const users = digests.map((d) => d.user);
    const sent = await storage.alertPreferences.digestsSent(week.start, users);
    const preferences = await storage.alertPreferences.forUsers(users);
    const gapMs = 60_000 / (this.#o.maxPerMinute ?? 30);
    const sleep = this.#o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    let mailed = 0;
    for (const digest of digests) {
      if (sent.has(digest.user)) continue;
      const p = preferences.get(digest.user) ?? defaultAlertPreferences(digest.user);
      const to = this.#o.recipients.addressOf(digest.user);
      if (!p.digest || !to) {
        report.skipped++;
        await storage.alertPreferences.markDigestSent(digest.user, week.start, now);
        continue;
      }
      if (p.quietHours && inQuietHours(p.quietHours, now)) {
        report.held++;
        continue;
      }
      if (mailed > 0) await sleep(gapMs);
      mailed++;
      try {
        await this.#o.mailer.send(digestMail(digest, to, this.#o.publicUrl));
      } catch (error) {
        report.failed++;
        this.#log.warn(
          { user: digest.user, reason: error instanceof Error ? error.message : String(error) },
          "weekly digest: mail failed; sent again at the next check",
        );
        continue;
      }
      report.sent++;
      await storage.alertPreferences.markDigestSent(digest.user, week.start, now);
    }
    if (report.held === 0 && report.failed === 0) this.#doneWeek = +week.start;
    this.#log.info({ week: week.start.toISOString(), ...report }, "weekly digests sent");
    return report;
  }
}
