import type { SecureContextOptions } from "node:tls";
import { ServerCredentials } from "@grpc/grpc-js";
import type { TlsMaterial } from "./tls.js";

/**
 * gRPC server credentials whose certificate can be replaced while the server runs: `update`
 * puts new material in force for new connections, as `setSecureContext` does for HTTPS. Clients
 * are asked for a certificate (and refused without one) only under mutual TLS.
 *
 * @example
 * ```ts
 * const credentials = new ReloadableGrpcCredentials(await loadTlsMaterial(config.tls));
 * server.bindAsync("0.0.0.0:4317", credentials, cb);
 * credentials.update(await loadTlsMaterial(config.tls)); // after a renewal
 * ```
 */
export class ReloadableGrpcCredentials extends ServerCredentials {
  constructor(material: TlsMaterial) {
    super(
      {
        requestCert: material.requireClientCertificate,
        rejectUnauthorized: material.requireClientCertificate,
      },
      contextOf(material),
    );
  }

  /** Serves `material` to the connections that start from now on. */
  update(material: TlsMaterial): void {
    this.updateSecureContextOptions(contextOf(material));
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

function contextOf(material: TlsMaterial): SecureContextOptions {
  return {
    cert: material.cert,
    key: material.key,
    ...(material.ca ? { ca: material.ca } : {}),
    minVersion: material.minVersion,
  };
}
