import type { AlertChannelName, AlertPreferences } from "@jobsight/schemas";
import type { UndeliveredAlert } from "../../../data-plane/stores/alert-store.js";
import type { ServiceLogger } from "../../service-options.js";
import { inQuietHours } from "./quiet-hours.js";
import type { AlertDeliveries } from "./webhook-channel.js";

/** Where the users' preferences are read (the preference store). */
export type PreferenceSource = {
  forUsers(users: readonly string[]): Promise<Map<string, AlertPreferences>>;
};

/** Options of {@link withPreferences}. */
export type PreferenceFilterOptions = {
  /** Which of the user's channels this view serves. */
  channel: AlertChannelName;
  /** The users' stored preferences; a user without any gets `defaults(user)`. */
  preferences: PreferenceSource;
  /** The preferences of a user who set none. */
  defaults: (user: string) => AlertPreferences;
  /** @default no-op */
  log?: ServiceLogger;
  /** The clock. @default () => new Date() */
  now?: () => Date;
};

/**
 * A view of the alert store in which each user's preferences decide what a channel sees: an alert
 * of a user who opted out, or who did not choose `channel`, is recorded as delivered without being
 * sent (so it is not looked at again this episode); one arriving in the user's quiet hours is held
 * (left undelivered) and shows up again once they end, if it is still firing. Preferences that
 * cannot be read hold every alert (nobody is told against their wish).
 *
 * @example
 * ```ts
 * await new EmailChannel(options).deliver(withPreferences(storage.alerts, { channel: "email", preferences, defaults }));
 * ```
 */
export function withPreferences(store: AlertDeliveries, options: PreferenceFilterOptions): AlertDeliveries {
  const now = options.now ?? (() => new Date());
  return {
    markDelivered: (id, firedAt, channel) => store.markDelivered(id, firedAt, channel),
    undelivered: async (channels, limit) => {
      const pending = await store.undelivered(channels, limit);
      if (pending.length === 0) return pending;
      let stored: Map<string, AlertPreferences>;
      try {
        stored = await options.preferences.forUsers(pending.map((a) => a.user));
      } catch (error) {
        options.log?.warn({ err: error }, "alerts: could not read the users' preferences; alerts held");
        return [];
      }
      const at = now();
      const admitted: UndeliveredAlert[] = [];
      for (const alert of pending) {
        const p = stored.get(alert.user) ?? options.defaults(alert.user);
        if (!p.enabled || !p.channels.includes(options.channel)) {
          for (const c of channels) {
            if (!alert.deliveredTo.includes(c)) await store.markDelivered(alert.id, alert.firedAt, c);
          }
        } else if (!(p.quietHours && inQuietHours(p.quietHours, at))) {
          admitted.push(alert);
        }
      }
      return admitted;
    },
  };
}
