import { ROLES, type UserList, type UserSummary } from "@jobsight/schemas";
import { jobUsers } from "../../../data-plane/queries/job-users.js";
import type { RouteDeps } from "../route-deps.js";
import type { RouteContext, RouteHandlers } from "../route-handler.js";
import { assertSiteWide } from "./site-wide-admin.js";

/**
 * `GET /v1/users` (site-wide admin): every user the server knows of, by name. A user is known
 * from their recorded jobs (clusters, count, last submission) or from a live issued API token
 * acting as them (count and roles); with `cluster`, only jobs of that cluster and tokens bound
 * to it or to none count. Users of configured tokens and OIDC sign-ins without jobs are not
 * stored anywhere, so not listed.
 */
export function userRoutes(deps: RouteDeps): RouteHandlers {
  return {
    listUsers: async ({ query, principal }: RouteContext<unknown, { cluster?: string }>) => {
      assertSiteWide(principal);
      const [fromJobs, tokens] = await Promise.all([
        jobUsers(deps.storage.pool, query.cluster),
        deps.storage.tokens.list(),
      ]);
      const users = new Map<string, UserSummary>(
        fromJobs.map((u) => [u.user, { ...u, liveTokens: 0, tokenRoles: [] }]),
      );
      for (const token of tokens) {
        if (token.revokedAt || !token.user) continue;
        if (query.cluster !== undefined && token.cluster !== undefined && token.cluster !== query.cluster)
          continue;
        let user = users.get(token.user);
        if (!user) {
          user = { user: token.user, clusters: [], jobs: 0, liveTokens: 0, tokenRoles: [] };
          users.set(token.user, user);
        }
        user.liveTokens++;
        if (!user.tokenRoles.includes(token.role)) user.tokenRoles.push(token.role);
      }
      const list = [...users.values()].sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
      for (const user of list) user.tokenRoles.sort((a, b) => ROLES.indexOf(a) - ROLES.indexOf(b));
      const answer: UserList = { users: list };
      return answer;
    },
  };
}
