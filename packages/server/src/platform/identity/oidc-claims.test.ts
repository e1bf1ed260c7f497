import { describe, expect, it } from "vitest";
import { claimsToPrincipal } from "./oidc-claims.js";
import { TokenError } from "./token-error.js";

const grants = {
  "hpc-users": { roles: ["researcher"] as const },
  "hpc1-admins": { roles: ["platform"] as const, clusters: ["hpc1"] },
  "k8s-admins": { roles: ["platform"] as const, clusters: ["k8s-a", "hpc1"] },
};

describe("claimsToPrincipal", () => {
  it("grants the roles and clusters of the groups it knows, and nothing for others", () => {
    const p = claimsToPrincipal(
      {
        sub: "s",
        preferred_username: "bob",
        groups: ["hpc1-admins", "k8s-admins", "unknown", "constructor"],
      },
      { groupGrants: grants },
    );
    expect(p).toEqual({
      subject: "s",
      user: "bob",
      roles: ["platform"],
      clusters: ["hpc1", "k8s-a"],
      source: "oidc",
    });
  });

  it("gives every cluster when a matching grant names none", () => {
    const p = claimsToPrincipal({ sub: "s", groups: ["hpc-users", "hpc1-admins"] }, { groupGrants: grants });
    expect(p.roles).toEqual(["researcher", "platform"]);
    expect(p.clusters).toBe("all");
  });

  it("reads nested claims and space-separated strings", () => {
    const p = claimsToPrincipal(
      { sub: "s", profile: { login: "carol" }, realm_access: { roles: "hpc-users other" } },
      { userClaim: "profile.login", groupsClaim: "realm_access.roles", groupGrants: grants },
    );
    expect(p).toMatchObject({ user: "carol", roles: ["researcher"] });
  });

  it("lets a clusters claim narrow the clusters of the groups, never widen them", () => {
    const narrowed = (groups: string[], claimed: unknown) =>
      claimsToPrincipal({ sub: "s", groups, jobsight_clusters: claimed }, { groupGrants: grants }).clusters;
    // hpc1-admins grants hpc1 only: naming hpc2 too adds nothing, naming only hpc2 leaves nothing.
    expect(narrowed(["hpc1-admins"], ["hpc1", "hpc2"])).toEqual(["hpc1"]);
    expect(narrowed(["hpc1-admins"], ["hpc2"])).toEqual([]);
    expect(narrowed(["k8s-admins"], "k8s-a")).toEqual(["k8s-a"]);
    // A grant of every cluster is narrowed to what the claim names.
    expect(narrowed(["hpc-users"], ["hpc2", "hpc2"])).toEqual(["hpc2"]);
    expect(narrowed(["hpc-users"], [])).toEqual([]);
  });

  it("leaves the user out when the user claim is missing, and reads `sub` when told to", () => {
    expect(
      claimsToPrincipal({ sub: "s", groups: ["hpc-users"] }, { groupGrants: grants }),
    ).not.toHaveProperty("user");
    expect(claimsToPrincipal({ sub: "s" }, { userClaim: "sub" }).user).toBe("s");
  });

  it("yields no roles (and no clusters) for a user in no known group", () => {
    const p = claimsToPrincipal(
      { sub: "s", preferred_username: "eve", groups: ["__proto__", "toString"] },
      { groupGrants: grants },
    );
    expect(p.roles).toEqual([]);
    expect(p.clusters).toEqual([]);
  });

  it("applies default roles to everyone", () => {
    const p = claimsToPrincipal({ sub: "s" }, { defaultRoles: ["researcher"] });
    expect(p).toMatchObject({ roles: ["researcher"], clusters: "all" });
  });

  it("refuses claims without a subject", () => {
    expect(() => claimsToPrincipal({ preferred_username: "x" })).toThrow(TokenError);
  });
});
