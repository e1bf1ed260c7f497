import type { Alert } from "@jobsight/schemas";
import type { FakeAnswer, FakeRouteContext } from "./fake-route-context.js";

/**
 * `GET /v1/alerts`: the seeded alerts (`fake.store.alerts`; the fake evaluates no rules), narrowed
 * by cluster, user and state, most recently seen first. The fake knows tokens' roles, not their
 * users, so it does not narrow a researcher to their own jobs as the server does.
 */
export function fakeListAlerts(ctx: FakeRouteContext): FakeAnswer {
  const { cluster, user, state } = ctx.query as { cluster?: string; user?: string; state?: Alert["state"] };
  const limit = (ctx.query.limit as number | undefined) ?? 100;
  const alerts = ctx.store.alerts
    .filter(
      (a) => (cluster === undefined || a.cluster === cluster) && (user === undefined || a.user === user),
    )
    .filter((a) => state === undefined || a.state === state)
    .sort((a, b) => Date.parse(b.lastSeen) - Date.parse(a.lastSeen) || a.id.localeCompare(b.id))
    .slice(0, limit);
  return { status: 200, json: { alerts } };
}
