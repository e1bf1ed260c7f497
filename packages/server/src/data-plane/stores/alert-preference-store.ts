import type { AlertChannelName, AlertPreferences, AlertPreferencesUpdate } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** Users read per statement. */
const BATCH = 1000;

type Row = {
  user_name: string;
  enabled: boolean;
  channels: AlertChannelName[];
  quiet_start: string | null;
  quiet_end: string | null;
  time_zone: string | null;
  digest: boolean;
  updated_at: Date;
};

const COLUMNS = "user_name, enabled, channels, quiet_start, quiet_end, time_zone, digest, updated_at";

/**
 * The preferences of a user who never set any: every alert on every channel, and the digest.
 *
 * @example
 * ```ts
 * defaultAlertPreferences("alice"); // { user: "alice", enabled: true, channels: ["email", "webhook"], digest: true }
 * ```
 */
export function defaultAlertPreferences(user: string): AlertPreferences {
  return { user, enabled: true, channels: ["email", "webhook"], digest: true };
}

function toPreferences(r: Row): AlertPreferences {
  const p: AlertPreferences = {
    user: r.user_name,
    enabled: r.enabled,
    channels: r.channels,
    digest: r.digest,
    updatedAt: r.updated_at.toISOString(),
  };
  if (r.quiet_start && r.quiet_end && r.time_zone)
    p.quietHours = { start: r.quiet_start, end: r.quiet_end, timeZone: r.time_zone };
  return p;
}

/**
 * Users' alert preferences (`alert_preferences`, migration 0012) and the ledger of weekly digests
 * sent (`alert_digests`), with parameterised statements only.
 *
 * @example
 * ```ts
 * const store = new AlertPreferenceStore(pool);
 * await store.set("alice", { enabled: false, channels: [], digest: true }, new Date());
 * (await store.get("alice")).enabled; // false
 * ```
 */
export class AlertPreferenceStore {
  constructor(private readonly pool: pg.Pool) {}

  /** The user's preferences, or the defaults when they never set any. */
  async get(user: string): Promise<AlertPreferences> {
    return (await this.forUsers([user])).get(user) ?? defaultAlertPreferences(user);
  }

  /** The preferences each of `users` set (users who set none are absent from the map). */
  async forUsers(users: readonly string[]): Promise<Map<string, AlertPreferences>> {
    const unique = [...new Set(users)];
    const found = new Map<string, AlertPreferences>();
    for (let i = 0; i < unique.length; i += BATCH) {
      const { rows } = await query<Row>(
        this.pool,
        `SELECT ${COLUMNS} FROM alert_preferences WHERE user_name = ANY($1::text[])`,
        [unique.slice(i, i + BATCH)],
      );
      for (const r of rows) found.set(r.user_name, toPreferences(r));
    }
    return found;
  }

  /** Replaces the user's preferences; resolves to them as stored. */
  async set(user: string, update: AlertPreferencesUpdate, at: Date): Promise<AlertPreferences> {
    const q = update.quietHours;
    const { rows } = await query<Row>(
      this.pool,
      `INSERT INTO alert_preferences (user_name, enabled, channels, quiet_start, quiet_end, time_zone, digest, updated_at)
       VALUES ($1, $2, $3::text[], $4, $5, $6, $7, $8)
       ON CONFLICT (user_name) DO UPDATE SET enabled = excluded.enabled, channels = excluded.channels,
         quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, time_zone = excluded.time_zone,
         digest = excluded.digest, updated_at = excluded.updated_at
       RETURNING ${COLUMNS}`,
      [
        user,
        update.enabled,
        [...new Set(update.channels)],
        q?.start ?? null,
        q?.end ?? null,
        q?.timeZone ?? null,
        update.digest,
        at,
      ],
    );
    return toPreferences(rows[0]);
  }

  /** The users of `users` whose digest of the week that began at `weekStart` was already sent. */
  async digestsSent(weekStart: Date, users: readonly string[]): Promise<Set<string>> {
    const { rows } = await query<{ user_name: string }>(
      this.pool,
      "SELECT user_name FROM alert_digests WHERE week_start = $1 AND user_name = ANY($2::text[])",
      [weekStart, [...new Set(users)]],
    );
    return new Set(rows.map((r) => r.user_name));
  }

  /** Records that the user's digest of the week that began at `weekStart` was sent at `at`. */
  async markDigestSent(user: string, weekStart: Date, at: Date): Promise<void> {
    await query(
      this.pool,
      `INSERT INTO alert_digests (user_name, week_start, sent_at) VALUES ($1, $2, $3)
       ON CONFLICT (user_name, week_start) DO NOTHING`,
      [user, weekStart, at],
    );
  }
}
