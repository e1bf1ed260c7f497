import { copyFile, readFile } from "node:fs/promises";
import { testPki } from "../../../src/platform/test-support/test-pki.js";

/** A throwaway PKI in a temporary directory (`testPki`, openssl). */
export type TestCertificates = {
  /** PEM certificate of the CA that signed the server certificate. */
  ca: Buffer;
  /** PEM certificate of another CA, which signed nothing here: trusting it alone must not do. */
  otherCa: Buffer;
  /** Server certificate (for IP 127.0.0.1 and DNS localhost) and its key, as files for `tls` config. */
  serverCertFile: string;
  serverKeyFile: string;
  /**
   * Replaces the server certificate and key files in place with new ones signed by the other CA,
   * as cert-manager rewrites a mounted Secret on renewal.
   */
  renewFromOtherCa(): Promise<void>;
  /** Removes the directory. */
  dispose(): Promise<void>;
};

/**
 * Makes two self-signed CAs and a server certificate from the first, valid for a day.
 *
 * @example
 * ```ts
 * const certs = await createTestCertificates();
 * const config = parseServerConfig({ tls: { certFile: certs.serverCertFile, keyFile: certs.serverKeyFile } });
 * // …
 * await certs.dispose();
 * ```
 */
export async function createTestCertificates(): Promise<TestCertificates> {
  const pki = await testPki();
  try {
    await pki.ca("ca", "Test CA");
    await pki.ca("other-ca", "Other CA");
    await pki.issue("server", "server", "ca", "IP:127.0.0.1,DNS:localhost");
    return {
      ca: await readFile(pki.file("ca.crt")),
      otherCa: await readFile(pki.file("other-ca.crt")),
      serverCertFile: pki.file("server.crt"),
      serverKeyFile: pki.file("server.key"),
      async renewFromOtherCa() {
        await pki.issue("renewed", "server", "other-ca", "IP:127.0.0.1,DNS:localhost");
        await copyFile(pki.file("renewed.key"), pki.file("server.key"));
        await copyFile(pki.file("renewed.crt"), pki.file("server.crt"));
      },
      dispose: () => pki.dispose(),
    };
  } catch (error) {
    await pki.dispose();
    throw error;
  }
}
