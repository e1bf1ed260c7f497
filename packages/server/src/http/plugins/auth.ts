import type { Role } from "@jobsight/schemas";
import type { FastifyRequest } from "fastify";
import { ForbiddenError, UnauthenticatedError } from "../../errors.js";
import type { Principal, TokenVerifier } from "../../platform/identity/principal.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Checks the bearer token of a request against the roles a route allows. */
    authorize(request: FastifyRequest, roles: readonly Role[]): Promise<Principal | undefined>;
  }
  interface FastifyRequest {
    /** The verified caller; absent on unauthenticated routes (health). */
    principal?: Principal;
  }
}

/** Options of {@link authPlugin}. */
export type AuthPluginOptions = {
  /** Verifiers tried in order (API tokens now; OIDC later). */
  verifiers: readonly TokenVerifier[];
};

/** The bearer token of a request, or `undefined`. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Authentication and role checks. Routes call `app.authorize(request, roles)`: an empty role list
 * means unauthenticated (only health and readiness); otherwise a valid token (401) of an allowed
 * role (403) is required, and the caller lands in `request.principal`.
 *
 * @example
 * ```ts
 * await app.register(authPlugin, { verifiers: [new ApiTokenVerifier({ tokens })] });
 * ```
 */
export const authPlugin = globalPlugin<AuthPluginOptions>("jobsight-auth", async (app, options) => {
  app.decorateRequest("principal", undefined);
  app.decorate("authorize", async (request: FastifyRequest, roles: readonly Role[]) => {
    if (roles.length === 0) return undefined;
    const token = bearerToken(request);
    if (!token) throw new UnauthenticatedError();
    let principal: Principal | undefined;
    for (const verifier of options.verifiers) {
      principal = await verifier.verify(token);
      if (principal) break;
    }
    if (!principal) throw new UnauthenticatedError("The bearer token is not valid");
    if (!roles.includes(principal.role)) {
      throw new ForbiddenError(
        `Role ${principal.role} may not ${request.method} ${request.routeOptions.url}`,
      );
    }
    request.principal = principal;
    return principal;
  });
});
