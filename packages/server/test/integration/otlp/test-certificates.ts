import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A throwaway PKI in a temporary directory, made with openssl as `src/security/tls.test.ts` does. */
export type TestCertificates = {
  /** PEM certificate of the CA that signed the server certificate. */
  ca: Buffer;
  /** PEM certificate of another CA, which signed nothing here: trusting it alone must not do. */
  otherCa: Buffer;
  /** Server certificate (for IP 127.0.0.1 and DNS localhost) and its key, as files for `tls` config. */
  serverCertFile: string;
  serverKeyFile: string;
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
  const dir = await mkdtemp(join(tmpdir(), "jobsight-otlp-tls-"));
  const file = (name: string) => join(dir, name);
  try {
    for (const [name, cn] of [
      ["ca", "Test CA"],
      ["other-ca", "Other CA"],
    ]) {
      await run("openssl", [
        "req",
        "-x509",
        ...EC_KEY,
        "-keyout",
        file(`${name}.key`),
        "-out",
        file(`${name}.crt`),
        "-days",
        "2",
        "-subj",
        `/CN=${cn}`,
      ]);
    }
    await run("openssl", [
      "req",
      ...EC_KEY,
      "-keyout",
      file("server.key"),
      "-out",
      file("server.csr"),
      "-subj",
      "/CN=server",
    ]);
    await writeFile(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    await run("openssl", [
      "x509",
      "-req",
      "-in",
      file("server.csr"),
      "-CA",
      file("ca.crt"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-out",
      file("server.crt"),
      "-days",
      "1",
      "-extfile",
      file("server.ext"),
    ]);
    return {
      ca: await readFile(file("ca.crt")),
      otherCa: await readFile(file("other-ca.crt")),
      serverCertFile: file("server.crt"),
      serverKeyFile: file("server.key"),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
