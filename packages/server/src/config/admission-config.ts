import { isIP } from "node:net";
import type { ConfigReader } from "./config-reader.js";

/** How the admission webhook's caller is authenticated; see `admission.clientAuth`. */
export type AdmissionClientAuth = "token" | "certificate" | "network";

/** The Kubernetes admission webhook's caller: the cluster's API server. */
export type AdmissionConfig = {
  /**
   * `token`: a scheduler bearer token only; `certificate`: also a client certificate that chains
   * to `tls.caFile`; `network`: also no credential at all (a NetworkPolicy admits only the API
   * server). @default "token"
   */
  clientAuth: AdmissionClientAuth;
  /** The cluster reviews without a token belong to; required unless `clientAuth` is `token`. */
  cluster?: string;
  /** Common names accepted from client certificates. @default [] (any from `tls.caFile`) */
  clientNames: string[];
  /** CIDR ranges tokenless calls may come from. @default [] (any) */
  sources: string[];
};

const CLUSTER_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * Reads `admission`. `hasClientCa` says whether `tls.caFile` is configured, which certificate
 * mode needs (the server asks for client certificates only then).
 */
export function readAdmission(r: ConfigReader, hasClientCa: boolean): AdmissionConfig {
  const clientAuth = r.option("admission.clientAuth");
  const cluster = r.option("admission.cluster");
  const clientNames = r.option("admission.clientNames") ?? [];
  const sources = r.option("admission.sources") ?? [];
  r.rejectUnknownKeys();
  if (clientAuth !== "token" && cluster === undefined) {
    r.issue("cluster", `is required when clientAuth is ${clientAuth} (the cluster whose API server calls)`);
  }
  if (cluster !== undefined && !CLUSTER_ID.test(cluster)) {
    r.issue("cluster", "must be a cluster id (lower-case letters, digits, - and _)");
  }
  if (clientAuth === "certificate" && !hasClientCa) {
    r.issue(
      "clientAuth",
      "certificate needs tls.certFile, tls.keyFile and tls.caFile (the CA of client certificates)",
    );
  }
  if (clientNames.length > 0 && clientAuth !== "certificate") {
    r.issue("clientNames", "applies only when clientAuth is certificate");
  }
  for (const [i, cidr] of sources.entries()) {
    if (parseCidr(cidr) === undefined)
      r.issue(`sources[${i}]`, `${cidr} is not an address range (e.g. 10.0.0.0/24)`);
  }
  return { clientAuth, ...(cluster === undefined ? {} : { cluster }), clientNames, sources };
}

/**
 * An address range `a.b.c.d/n` or `x::y/n` (a bare address is a range of one), or `undefined`.
 *
 * @example
 * ```ts
 * parseCidr("10.0.0.0/24"); // { address: "10.0.0.0", prefix: 24, family: "ipv4" }
 * ```
 */
export function parseCidr(
  cidr: string,
): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [address, bits, extra] = cidr.trim().split("/");
  const version = isIP(address ?? "");
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (bits !== undefined && !/^\d+$/.test(bits)))
    return undefined;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}
