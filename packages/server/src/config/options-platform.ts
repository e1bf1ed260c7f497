import { ROLES } from "@jobsight/schemas";
import { ASYMMETRIC_ALGORITHMS } from "../platform/identity/oidc-verifier.js";
import type { OptionSpec } from "./option-spec.js";

/** API tokens, OIDC sign-in, the licence and the control-plane heartbeat. */
export const platformOptions = [
  {
    path: "auth.tokens[].token",
    type: "string",
    secret: true,
    description: "An API token (at least 16 characters), kept only as its sha256; or give tokenSha256.",
  },
  {
    path: "auth.tokens[].tokenSha256",
    type: "string",
    description: "sha256 (64 lower-case hex digits) of the token, instead of the token.",
  },
  {
    path: "auth.tokens[].role",
    type: "enum",
    values: ROLES,
    description: "What the token may do. Required.",
  },
  {
    path: "auth.tokens[].user",
    type: "string",
    description: "The user the token acts as. Required.",
  },
  {
    path: "auth.tokens[].cluster",
    type: "string",
    description: "The cluster the token is bound to; required for collector and scheduler tokens.",
  },
  {
    path: "auth.tokens[].id",
    type: "string",
    defaultText: "`config-<n>`",
    description: "Name of the token in logs (never the token).",
  },
  {
    path: "oidc.issuer",
    type: "string",
    env: "JOBSIGHT_OIDC_ISSUER",
    description:
      "OpenID Connect issuer exactly as in tokens' iss (https; http only on loopback). Default: API tokens only.",
  },
  {
    path: "oidc.audience",
    type: "list",
    env: "JOBSIGHT_OIDC_AUDIENCE",
    description:
      "Accepted audiences (aud): the client id and/or the API's identifier; required with an issuer.",
  },
  {
    path: "oidc.algorithms",
    type: "list",
    env: "JOBSIGHT_OIDC_ALGORITHMS",
    default: ["RS256", "ES256", "EdDSA"],
    description: `Accepted signature algorithms, of ${ASYMMETRIC_ALGORITHMS.join(", ")}.`,
  },
  {
    path: "oidc.clockToleranceSeconds",
    type: "integer",
    env: "JOBSIGHT_OIDC_CLOCK_TOLERANCE_SECONDS",
    default: 30,
    min: 0,
    max: 600,
    description: "Clock skew tolerated on exp and nbf, in seconds.",
  },
  {
    path: "oidc.jwksUri",
    type: "string",
    env: "JOBSIGHT_OIDC_JWKS_URI",
    description: "The JWKS URL; when set, discovery is skipped. Default: the discovery document's jwks_uri.",
  },
  {
    path: "oidc.jwksCooldownSeconds",
    type: "integer",
    env: "JOBSIGHT_OIDC_JWKS_COOLDOWN_SECONDS",
    default: 30,
    min: 0,
    max: 3600,
    description: "Least seconds between two JWKS refetches caused by an unknown key id.",
  },
  {
    path: "oidc.claims.user",
    type: "string",
    env: "JOBSIGHT_OIDC_CLAIMS_USER",
    default: "preferred_username",
    description: "Claim naming the user jobs are recorded under.",
  },
  {
    path: "oidc.claims.groups",
    type: "string",
    env: "JOBSIGHT_OIDC_CLAIMS_GROUPS",
    default: "groups",
    description: "Claim listing the user's groups.",
  },
  {
    path: "oidc.claims.clusters",
    type: "string",
    env: "JOBSIGHT_OIDC_CLAIMS_CLUSTERS",
    default: "jobsight_clusters",
    description: "Claim listing the clusters the user's roles apply to.",
  },
  {
    path: "oidc.groupGrants.<group>.roles",
    type: "list",
    values: ROLES,
    itemName: "role",
    description: "Roles membership of the group grants. Required.",
  },
  {
    path: "oidc.groupGrants.<group>.clusters",
    type: "list",
    defaultText: "`all`",
    description: "Clusters those roles apply to.",
  },
  {
    path: "oidc.defaultRoles",
    type: "list",
    env: "JOBSIGHT_OIDC_DEFAULT_ROLES",
    values: ROLES,
    itemName: "role",
    default: [],
    description: "Roles every signed-in user gets.",
  },
  {
    path: "licence.file",
    type: "string",
    env: "JOBSIGHT_LICENCE_FILE",
    description: "File holding the licence. Default: none, the evaluation state, which restricts nothing.",
  },
  {
    path: "licence.jws",
    type: "string",
    env: "JOBSIGHT_LICENCE",
    secret: true,
    description: "The licence itself (a compact JWS), instead of licence.file.",
  },
  {
    path: "licence.graceDays",
    type: "integer",
    env: "JOBSIGHT_LICENCE_GRACE_DAYS",
    default: 14,
    min: 0,
    max: 365,
    description: "Days after expiry before the licence state turns expired.",
  },
  {
    path: "controlPlane.url",
    type: "string",
    env: "JOBSIGHT_CONTROL_PLANE_URL",
    description:
      "Where heartbeats (versions, health, licence id, counts) are posted. Default: nothing is sent.",
  },
  {
    path: "controlPlane.intervalSeconds",
    type: "integer",
    env: "JOBSIGHT_CONTROL_PLANE_INTERVAL_SECONDS",
    default: 3600,
    min: 60,
    max: 7 * 86_400,
    description: "Seconds between heartbeats.",
  },
  {
    path: "controlPlane.allowInsecureHttp",
    type: "boolean",
    env: "JOBSIGHT_CONTROL_PLANE_ALLOW_INSECURE_HTTP",
    default: false,
    description: "Allow plain http to a non-loopback control plane (never in production).",
  },
] as const satisfies readonly OptionSpec[];
