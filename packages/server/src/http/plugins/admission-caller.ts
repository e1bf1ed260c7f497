import { BlockList, isIP } from "node:net";
import type { TLSSocket } from "node:tls";
import type { FastifyRequest } from "fastify";
import { type AdmissionConfig, parseCidr } from "../../config/admission-config.js";
import { UnauthenticatedError } from "../../errors.js";
import type { Principal } from "../../platform/identity/principal.js";
import type { TokenlessVerifier } from "./auth.js";

/** The route the Kubernetes API server calls; the only one a tokenless caller may reach. */
export const ADMISSION_OPERATION = "admitKubernetesObject";

/**
 * The caller of the admission webhook when it sends no bearer token, as Kubernetes API servers
 * do unless an AdmissionConfiguration kubeconfig gives them one. With `clientAuth: certificate`
 * it is the API server's client certificate, verified against `tls.caFile` in the handshake (and
 * its common name against `clientNames`); with `network` it is whoever the NetworkPolicy lets
 * reach the port. Every other route, and `token` mode, still need a token.
 *
 * @example
 * ```ts
 * await app.register(authPlugin, { verifiers, withoutToken: admissionCaller(config.admission) });
 * ```
 */
export function admissionCaller(config: AdmissionConfig | undefined): TokenlessVerifier | undefined {
  if (!config || config.clientAuth === "token" || config.cluster === undefined) return undefined;
  const { clientAuth, cluster, clientNames } = config;
  const sources = allowedSources(config.sources);
  return (request: FastifyRequest) => {
    if (request.routeOptions.config.operationId !== ADMISSION_OPERATION) return undefined;
    const from = request.raw.socket.remoteAddress ?? "";
    if (sources && !sourceAllowed(sources, from)) {
      request.log.warn({ from }, "admission webhook called without a token from outside admission.sources");
      return new UnauthenticatedError(`Calls without a token from ${from} are not in admission.sources`);
    }
    if (clientAuth === "network") {
      return principal("kube-apiserver", cluster, "admission-network", "network-policy");
    }
    const socket = request.raw.socket as Partial<TLSSocket>;
    const peer = socket.encrypted && socket.authorized ? socket.getPeerCertificate?.() : undefined;
    const name = peer?.subject?.CN;
    if (!peer || typeof name !== "string") {
      return new UnauthenticatedError(
        "The admission webhook needs a client certificate from tls.caFile (or a scheduler token)",
      );
    }
    if (clientNames.length > 0 && !clientNames.includes(name)) {
      return new UnauthenticatedError(`Client certificate ${name} is not one of admission.clientNames`);
    }
    const id = `admission-certificate:${peer.fingerprint256.replaceAll(":", "").slice(0, 16).toLowerCase()}`;
    return principal(name, cluster, id, "client-certificate");
  };
}

function allowedSources(cidrs: readonly string[]): BlockList | undefined {
  if (cidrs.length === 0) return undefined;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const range = parseCidr(cidr);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list;
}

// IPv4 clients of a dual-stack listener arrive as ::ffff:a.b.c.d.
function sourceAllowed(list: BlockList, address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return isIP(v4) === 4 ? list.check(v4, "ipv4") : isIP(address) === 6 && list.check(address, "ipv6");
}

function principal(user: string, cluster: string, tokenId: string, via: string): Principal {
  return { role: "scheduler", user, cluster, tokenId, via };
}
