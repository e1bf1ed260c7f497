import type { AlertPreferences, AlertPreferencesQuery, AlertPreferencesUpdate } from "@jobsight/schemas";
import { ForbiddenError, ValidationError } from "../../errors.js";
import { isTimeZone } from "../../intelligence/alerts/channels/quiet-hours.js";
import type { Principal } from "../../platform/identity/principal.js";
import type { RouteDeps } from "./route-deps.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/**
 * Whose preferences a request reaches: a researcher only their own (naming another user is
 * refused, not answered with someone else's); the platform role anyone it names, or itself. No
 * token bound to a cluster changes them: preferences are site-wide.
 */
function targetUser(
  principal: Principal | undefined,
  query: AlertPreferencesQuery,
  writing: boolean,
): string {
  if (!principal) throw new ForbiddenError("Authentication required");
  const named = query.user;
  if (writing && principal.cluster)
    throw new ForbiddenError(
      `Alert preferences are site-wide: a token bound to cluster ${principal.cluster} cannot change them`,
    );
  if (principal.role === "researcher" && named !== undefined && named !== principal.user)
    throw new ForbiddenError("A researcher reads and sets only their own alert preferences", [
      { path: "/query/user", message: `must be ${principal.user} (or left out) for this token` },
    ]);
  const user = named ?? principal.user;
  if (!user)
    throw new ValidationError([{ path: "/query/user", message: "is required: this token acts as no user" }]);
  return user;
}

/**
 * `GET /v1/alerts/preferences` and `PUT /v1/alerts/preferences`: how live alerts and the weekly
 * digest reach a user (opt-out, channels, quiet hours in their time zone, digest). A user who
 * never set any reads the defaults (no `updatedAt`).
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...alertPreferenceRoutes(deps) });
 * ```
 */
export function alertPreferenceRoutes(deps: RouteDeps): RouteHandlers {
  return {
    getAlertPreferences: async ({
      query,
      principal,
    }: RouteContext<unknown, AlertPreferencesQuery>): Promise<AlertPreferences> =>
      deps.storage.alertPreferences.get(targetUser(principal, query, false)),
    setAlertPreferences: async ({
      body,
      query,
      principal,
    }: RouteContext<AlertPreferencesUpdate, AlertPreferencesQuery>): Promise<AlertPreferences> => {
      const user = targetUser(principal, query, true);
      if (body.quietHours && !isTimeZone(body.quietHours.timeZone))
        throw new ValidationError([
          { path: "/quietHours/timeZone", message: "must be an IANA time zone, e.g. Europe/Berlin" },
        ]);
      return deps.storage.alertPreferences.set(user, body, new Date());
    },
  };
}
