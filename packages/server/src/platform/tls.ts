import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { SecureContextOptions } from "node:tls";
import { SecurityConfigError } from "./security-config-error.js";

/** Where the listeners' certificate and key are, and whether clients must present one. */
export type TlsOptions = {
  /** PEM certificate chain of the server (leaf first). */
  certFile: string;
  /** PEM private key of the leaf certificate. */
  keyFile: string;
  /**
   * PEM CA bundle that client certificates must chain to (mutual TLS).
   * @default undefined (no client certificates asked for)
   */
  caFile?: string;
  /**
   * Refuse clients without a certificate from `caFile`.
   * @default false
   */
  requireClientCertificate?: boolean;
  /**
   * Oldest TLS version accepted.
   * @default "TLSv1.2"
   */
  minVersion?: "TLSv1.2" | "TLSv1.3";
};

/** The files read and checked, ready for both listeners. */
export type TlsMaterial = {
  key: Buffer;
  cert: Buffer;
  ca?: Buffer;
  requireClientCertificate: boolean;
  minVersion: "TLSv1.2" | "TLSv1.3";
  /** When the leaf certificate expires (RFC 3339), for health and warnings. */
  notAfter: string;
  /** The leaf's subject, for logs. */
  subject: string;
};

/**
 * Reads the certificate, key and CA bundle, and checks them before any listener starts: each file
 * is PEM, the key belongs to the certificate, and mutual TLS has a CA to check clients against.
 *
 * @throws {SecurityConfigError} naming the file at fault.
 * @example
 * ```ts
 * const tls = await loadTlsMaterial({ certFile: "/etc/jobsight/tls.crt", keyFile: "/etc/jobsight/tls.key" });
 * const app = fastify({ https: httpsServerOptions(tls) });
 * ```
 */
export async function loadTlsMaterial(options: TlsOptions): Promise<TlsMaterial> {
  const cert = await readPem(options.certFile, "tls.certFile");
  const key = await readPem(options.keyFile, "tls.keyFile");
  const ca = options.caFile ? await readPem(options.caFile, "tls.caFile") : undefined;
  const requireClientCertificate = options.requireClientCertificate ?? false;
  if (requireClientCertificate && !ca) {
    throw new SecurityConfigError("tls.caFile", "client certificates are required, so a CA bundle is needed");
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (error) {
    throw new SecurityConfigError(
      "tls.certFile",
      `${options.certFile} is not a PEM certificate (${(error as Error).message})`,
    );
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(key));
  } catch (error) {
    throw new SecurityConfigError(
      "tls.keyFile",
      `${options.keyFile} is not a PEM private key (${(error as Error).message})`,
    );
  }
  if (!matches)
    throw new SecurityConfigError("tls.keyFile", `${options.keyFile} is not the key of ${options.certFile}`);
  return {
    key,
    cert,
    ...(ca ? { ca } : {}),
    requireClientCertificate,
    minVersion: options.minVersion ?? "TLSv1.2",
    notAfter: new Date(leaf.validTo).toISOString(),
    subject: leaf.subject,
  };
}

/**
 * Options for `fastify({ https })` (and for `server.setSecureContext` when certificates rotate).
 *
 * @example
 * ```ts
 * const app = fastify({ https: httpsServerOptions(await loadTlsMaterial(config.tls)) });
 * ```
 */
export function httpsServerOptions(material: TlsMaterial): SecureContextOptions & {
  requestCert: boolean;
  rejectUnauthorized: boolean;
} {
  return {
    key: material.key,
    cert: material.cert,
    ...(material.ca ? { ca: material.ca } : {}),
    minVersion: material.minVersion,
    requestCert: material.ca !== undefined,
    rejectUnauthorized: material.requireClientCertificate,
  };
}

async function readPem(file: string, path: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new SecurityConfigError(
      path,
      `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  if (!bytes.includes("-----BEGIN ")) throw new SecurityConfigError(path, `${file} is not PEM`);
  return bytes;
}
