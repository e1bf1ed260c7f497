import { ForbiddenError } from "../../../errors.js";
import type { Principal } from "../../../platform/identity/principal.js";

/**
 * Refuses (403) an admin bound to a cluster (a configured token or an OIDC grant of some
 * clusters only): tokens, users and cluster removal span every cluster, so their routes need a
 * site-wide admin. The route table has already checked the role.
 *
 * @example
 * ```ts
 * assertSiteWide(principal); // throws for { role: "admin", cluster: "hpc1", … }
 * ```
 */
export function assertSiteWide(principal: Principal | undefined): asserts principal is Principal {
  if (!principal) throw new ForbiddenError("Authentication required");
  if (principal.cluster) {
    throw new ForbiddenError(
      `This token is bound to cluster ${principal.cluster}; this route needs a site-wide admin token`,
    );
  }
}
