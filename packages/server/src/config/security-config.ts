import { isAbsolute, resolve } from "node:path";
import type { Role } from "@jobsight/schemas";
import { ASYMMETRIC_ALGORITHMS } from "../platform/identity/oidc-verifier.js";
import type { ConfigReader } from "./config-reader.js";

/** What membership of one identity-provider group grants. */
export type OidcGroupGrantConfig = {
  /** Roles the group grants. */
  roles: Role[];
  /** Clusters the roles apply to. @default "all" */
  clusters: "all" | string[];
};

/** Sign-in through the site's OpenID Connect identity provider; absent: API tokens only. */
export type OidcConfig = {
  /** The issuer exactly as in tokens' `iss` (https, or http on loopback for tests). */
  issuer: string;
  /** Accepted audiences (`aud`): the client id and/or the API's identifier. */
  audience: string[];
  /** Accepted signature algorithms (asymmetric only). @default ["RS256", "ES256", "EdDSA"] */
  algorithms: string[];
  /** Clock skew tolerated on `exp`/`nbf`, in seconds. @default 30 */
  clockToleranceSeconds: number;
  /** The JWKS URL; when set, discovery is skipped. @default the discovery document's `jwks_uri` */
  jwksUri?: string;
  /**
   * Least seconds between two JWKS refetches caused by an unknown key id (a rotated key is found
   * after at most this long; forged key ids cannot flood the identity provider). @default 30
   */
  jwksCooldownSeconds: number;
  /** Claim names: the user jobs are recorded under, the groups, the clusters. */
  claims: {
    /** @default "preferred_username" */
    user: string;
    /** @default "groups" */
    groups: string;
    /** @default "jobsight_clusters" */
    clusters: string;
  };
  /** Group name → roles (and clusters) it grants; other groups grant nothing. @default {} */
  groupGrants: Record<string, OidcGroupGrantConfig>;
  /** Roles every signed-in user gets. @default [] */
  defaultRoles: Role[];
};

/** The licence: a compact JWS from the vendor, inline or in a file. */
export type LicenceConfig = {
  /** File holding the licence. @default undefined */
  file?: string;
  /** The licence itself (e.g. from `JOBSIGHT_LICENCE`). @default undefined */
  jws?: string;
  /**
   * Days after expiry before the state turns `expired`. Over the node limit the state is `grace`
   * for as long as more nodes report than the licence covers; nothing is ever refused. @default 14
   */
  graceDays: number;
};

/** The control-plane heartbeat: versions, health, licence id and aggregate counts only. */
export type ControlPlaneConfig = {
  /** Where heartbeats are posted; absent: nothing is ever sent. @default undefined */
  url?: string;
  /** Seconds between heartbeats. @default 3600 */
  intervalSeconds: number;
  /** Plain http to a non-loopback host (never in production). @default false */
  allowInsecureHttp: boolean;
};

/** TLS of the HTTP API and both OTLP listeners; absent: plain TCP (behind a TLS proxy). */
export type TlsConfig = {
  /** PEM certificate chain (leaf first). */
  certFile: string;
  /** PEM private key of the leaf. */
  keyFile: string;
  /** PEM CA bundle client certificates must chain to (mutual TLS). @default undefined */
  caFile?: string;
  /** Refuse clients without a certificate from `caFile`. @default false */
  requireClientCertificate: boolean;
  /** Oldest TLS version accepted. @default "TLSv1.2" */
  minVersion: "TLSv1.2" | "TLSv1.3";
};

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

function checkHttpsUrl(r: ConfigReader, key: string, value: string | undefined, allowHttp = false): void {
  if (value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    r.issue(key, "must be a URL");
    return;
  }
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && (allowHttp || LOOPBACK.has(url.hostname))) return;
  r.issue(key, "must be an https URL (http only on loopback)");
}

/** Reads `oidc`; `undefined` when no issuer is configured. */
export function readOidc(r: ConfigReader): OidcConfig | undefined {
  const issuer = r.option("oidc.issuer");
  const audience = r.option("oidc.audience");
  const algorithms = r.option("oidc.algorithms");
  const clockToleranceSeconds = r.option("oidc.clockToleranceSeconds");
  const jwksUri = r.option("oidc.jwksUri");
  const jwksCooldownSeconds = r.option("oidc.jwksCooldownSeconds");
  const claimsReader = r.child("claims");
  const claims = {
    user: claimsReader.option("oidc.claims.user"),
    groups: claimsReader.option("oidc.claims.groups"),
    clusters: claimsReader.option("oidc.claims.clusters"),
  };
  claimsReader.rejectUnknownKeys();
  const groupGrants: Record<string, OidcGroupGrantConfig> = {};
  for (const [group, g] of r.entries("groupGrants")) {
    const roles = g.option("oidc.groupGrants.<group>.roles") ?? [];
    if (roles.length === 0 && !g.has("roles")) g.issue("roles", "is required");
    const clusters = g.option("oidc.groupGrants.<group>.clusters");
    g.rejectUnknownKeys();
    groupGrants[group] = { roles, clusters: !clusters || clusters.includes("all") ? "all" : clusters };
  }
  const defaultRoles = r.option("oidc.defaultRoles");
  r.rejectUnknownKeys();
  const configured = issuer !== undefined || audience !== undefined || Object.keys(groupGrants).length > 0;
  if (!configured) return undefined;
  if (issuer === undefined) r.issue("issuer", "is required when OIDC sign-in is configured");
  if (audience === undefined) r.issue("audience", "is required when OIDC sign-in is configured");
  checkHttpsUrl(r, "issuer", issuer);
  checkHttpsUrl(r, "jwksUri", jwksUri);
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      r.issue("algorithms", `${alg} is not accepted; only ${ASYMMETRIC_ALGORITHMS.join(", ")}`);
    }
  }
  return {
    issuer: issuer ?? "",
    audience: audience ?? [],
    algorithms,
    clockToleranceSeconds,
    jwksCooldownSeconds,
    ...(jwksUri === undefined ? {} : { jwksUri }),
    claims,
    groupGrants,
    defaultRoles,
  };
}

/** Reads `licence` (both absent: the evaluation state, reported as `missing`). */
export function readLicence(r: ConfigReader, cwd: string): LicenceConfig {
  const file = r.option("licence.file");
  const jws = r.option("licence.jws");
  const config: LicenceConfig = { graceDays: r.option("licence.graceDays") };
  r.rejectUnknownKeys();
  if (file !== undefined && jws !== undefined) r.issue("jws", "give file or jws, not both");
  if (file !== undefined) config.file = isAbsolute(file) ? file : resolve(cwd, file);
  if (jws !== undefined) config.jws = jws;
  return config;
}

/** Reads `controlPlane` (no URL: off). */
export function readControlPlane(r: ConfigReader): ControlPlaneConfig {
  const url = r.option("controlPlane.url");
  const config: ControlPlaneConfig = {
    intervalSeconds: r.option("controlPlane.intervalSeconds"),
    allowInsecureHttp: r.option("controlPlane.allowInsecureHttp"),
  };
  r.rejectUnknownKeys();
  checkHttpsUrl(r, "url", url, config.allowInsecureHttp);
  if (url !== undefined) config.url = url;
  return config;
}

/** Reads `tls`; `undefined` when no certificate is configured. */
export function readTls(r: ConfigReader, cwd: string): TlsConfig | undefined {
  const certFile = r.option("tls.certFile");
  const keyFile = r.option("tls.keyFile");
  const caFile = r.option("tls.caFile");
  const requireClientCertificate = r.option("tls.requireClientCertificate");
  const minVersion = r.option("tls.minVersion");
  r.rejectUnknownKeys();
  if (certFile === undefined && keyFile === undefined) {
    if (caFile !== undefined) r.issue("caFile", "needs certFile and keyFile");
    return undefined;
  }
  if (certFile === undefined) r.issue("certFile", "is required with keyFile");
  if (keyFile === undefined) r.issue("keyFile", "is required with certFile");
  if (requireClientCertificate && caFile === undefined) {
    r.issue("caFile", "is required when requireClientCertificate is true");
  }
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
  return {
    certFile: abs(certFile ?? ""),
    keyFile: abs(keyFile ?? ""),
    ...(caFile === undefined ? {} : { caFile: abs(caFile) }),
    requireClientCertificate,
    minVersion,
  };
}
