import { type Static, Type } from "@sinclair/typebox";
import { Name, Timestamp } from "../common.js";

/** The channels a user may choose to be told on (Alertmanager is the operators', not a user's). */
export const AlertChannelName = Type.Union([Type.Literal("email"), Type.Literal("webhook")], {
  description:
    "email: a mail to the user's address; webhook: the site's chat webhooks (Slack, Mattermost) naming the user.",
});
export type AlertChannelName = Static<typeof AlertChannelName>;

const ClockTime = (description: string) =>
  Type.String({ pattern: "^([01][0-9]|2[0-3]):[0-5][0-9]$", description });

/** Hours in the user's time zone when no alert reaches them; held alerts are sent when they end. */
export const QuietHours = Type.Object(
  {
    start: ClockTime("Start of the quiet hours, HH:MM in `timeZone` (e.g. 22:00)."),
    end: ClockTime(
      "End of the quiet hours, HH:MM in `timeZone` (e.g. 07:00); before `start`: over midnight.",
    ),
    timeZone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "An IANA time zone, e.g. Europe/Berlin (daylight saving time follows it).",
    }),
  },
  { additionalProperties: false },
);
export type QuietHours = Static<typeof QuietHours>;

const Fields = {
  enabled: Type.Boolean({
    description: "false: no live alert reaches the user on any of their channels (opt-out).",
  }),
  channels: Type.Array(AlertChannelName, {
    uniqueItems: true,
    maxItems: 2,
    description: "The channels live alerts about the user's jobs go to.",
  }),
  quietHours: Type.Optional(QuietHours),
  digest: Type.Boolean({
    description: "Send the weekly digest (efficiency, waste and the edits that would have saved it).",
  }),
};

/**
 * A user's choices of how live alerts and the weekly digest reach them (`PUT /v1/alerts/preferences`).
 *
 * @example
 * ```ts
 * const body: AlertPreferencesUpdate = {
 *   enabled: true, channels: ["email"], digest: true,
 *   quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" },
 * };
 * ```
 */
export const AlertPreferencesUpdate = Type.Object(Fields, {
  $id: "AlertPreferencesUpdate",
  additionalProperties: false,
  description: "How alerts reach the user: every field is replaced (quiet hours absent: none).",
});
export type AlertPreferencesUpdate = Static<typeof AlertPreferencesUpdate>;

/** A user's alert preferences: the defaults until they set their own. */
export const AlertPreferences = Type.Object(
  {
    user: Name("The user the preferences are of.", 128),
    ...Fields,
    updatedAt: Type.Optional(Timestamp),
  },
  {
    $id: "AlertPreferences",
    additionalProperties: false,
    description: "How alerts reach one user; without `updatedAt`, the site's defaults (never set).",
  },
);
export type AlertPreferences = Static<typeof AlertPreferences>;

/** The query of the preference routes: whose (the platform role may name any user). */
export const AlertPreferencesQuery = Type.Object(
  { user: Type.Optional(Name("The user (a researcher may name only themselves).", 128)) },
  { additionalProperties: false },
);
export type AlertPreferencesQuery = Static<typeof AlertPreferencesQuery>;
