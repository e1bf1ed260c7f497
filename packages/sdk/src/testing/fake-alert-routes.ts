import type { Alert, AlertPreferencesUpdate } from "@jobsight/schemas";
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

/** The user the fake answers for: the one named, else `researcher` (the fake knows no token's user). */
const userOf = (ctx: FakeRouteContext) => (ctx.query.user as string | undefined) ?? "researcher";

/** `GET /v1/alerts/preferences`: what was set, else the server's defaults. */
export function fakeGetAlertPreferences(ctx: FakeRouteContext): FakeAnswer {
  const user = userOf(ctx);
  const stored = ctx.store.alertPreferences.get(user);
  return {
    status: 200,
    json: stored ?? { user, enabled: true, channels: ["email", "webhook"], digest: true },
  };
}

/** `PUT /v1/alerts/preferences`: replaces them (the route table has validated the body). */
export function fakeSetAlertPreferences(ctx: FakeRouteContext): FakeAnswer {
  const user = userOf(ctx);
  const preferences = { user, ...(ctx.body as AlertPreferencesUpdate), updatedAt: ctx.now().toISOString() };
  ctx.store.alertPreferences.set(user, preferences);
  return { status: 200, json: preferences };
}

/**
 * `GET /v1/alerts/actions`: the seeded audit log (`fake.store.alertActions`), narrowed by
 * cluster, user and job, newest first.
 */
export function fakeListAlertActions(ctx: FakeRouteContext): FakeAnswer {
  const { cluster, user, jobId } = ctx.query as { cluster?: string; user?: string; jobId?: string };
  const limit = (ctx.query.limit as number | undefined) ?? 100;
  const actions = ctx.store.alertActions
    .filter(
      (a) => (cluster === undefined || a.cluster === cluster) && (user === undefined || a.user === user),
    )
    .filter((a) => jobId === undefined || a.jobId === jobId)
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || a.id.localeCompare(b.id))
    .slice(0, limit);
  return { status: 200, json: { actions } };
}
