import type { AlertPreferences, AlertPreferencesUpdate } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Whose preferences: the caller's own when left out (only the platform role may name another user). */
export type AlertPreferencesTarget = { user?: string };

/**
 * How live alerts and the weekly digest reach a user: opt-out, channels (`email`, `webhook`),
 * quiet hours in their time zone, and the digest.
 */
export class AlertPreferencesResource {
  constructor(private readonly transport: Transport) {}

  /**
   * The preferences of the caller (or, for the platform role, of `target.user`); the site's
   * defaults, without `updatedAt`, when never set.
   *
   * @example
   * ```ts
   * const mine = await client.alerts.preferences.get();
   * console.log(mine.channels, mine.quietHours);
   * ```
   * @throws PermissionError when a researcher names another user.
   */
  async get(target: AlertPreferencesTarget = {}, options?: RequestOptions): Promise<AlertPreferences> {
    return this.transport.request<AlertPreferences>({
      operationId: "getAlertPreferences",
      query: { user: target.user },
      options,
    });
  }

  /**
   * Replaces the preferences (every field; quiet hours left out: none). Alerts in the quiet hours
   * are held and sent when they end, if still firing.
   *
   * @example
   * ```ts
   * await client.alerts.preferences.set({
   *   enabled: true, channels: ["email"], digest: true,
   *   quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" },
   * });
   * ```
   * @throws BadRequestError naming the field, e.g. an unknown time zone at `/quietHours/timeZone`.
   * @throws PermissionError when a researcher names another user.
   */
  async set(
    preferences: AlertPreferencesUpdate,
    target: AlertPreferencesTarget = {},
    options?: RequestOptions,
  ): Promise<AlertPreferences> {
    return this.transport.request<AlertPreferences>({
      operationId: "setAlertPreferences",
      query: { user: target.user },
      body: preferences,
      options,
    });
  }
}
