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

/**
 * Who a request without a bearer token is, for the few callers that cannot send one (the
 * Kubernetes API server calling the admission webhook): a principal, `undefined` to refuse it
 * (401), or an error to throw instead (a 401 that says what is missing).
 */
export type TokenlessVerifier = (request: FastifyRequest) => Principal | UnauthenticatedError | undefined;

/** Options of {@link authPlugin}. */
export type AuthPluginOptions = {
  /** Verifiers tried in order (API tokens now; OIDC later). */
  verifiers: readonly TokenVerifier[];
  /** Requests without a token, asked before they are refused. @default every one is refused */
  withoutToken?: TokenlessVerifier;
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
 * role (403) is required, and the caller lands in `request.principal`. A request without a token
 * is refused unless `withoutToken` names its caller (the admission webhook's API server).
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
    let principal: Principal | undefined;
    if (token) {
      for (const verifier of options.verifiers) {
        principal = await verifier.verify(token);
        if (principal) break;
      }
      if (!principal) throw new UnauthenticatedError("The bearer token is not valid");
    } else {
      const tokenless = options.withoutToken?.(request);
      if (tokenless instanceof UnauthenticatedError) throw tokenless;
      if (!tokenless) throw new UnauthenticatedError();
      principal = tokenless;
    }
    if (!roles.includes(principal.role)) {
      throw new ForbiddenError(
        `Role ${principal.role} may not ${request.method} ${request.routeOptions.url}`,
      );
    }
    request.principal = principal;
    return principal;
  });
});
