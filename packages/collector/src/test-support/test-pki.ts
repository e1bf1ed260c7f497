import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/**
 * Throwaway certificates made with openssl in `dir`, for tests of TLS clients against real TLS
 * servers on 127.0.0.1: `<name>.key` and `<name>.crt` per CA or certificate.
 *
 * @example
 * ```ts
 * const pki = testPki(dir);
 * await pki.ca("ca", "/CN=Test CA");
 * const { cert, key } = await pki.issue("server", "ca", "/CN=s", "IP:127.0.0.1");
 * ```
 */
export function testPki(dir: string) {
  const f = (name: string) => join(dir, name);
  return {
    file: f,
    /** A self-signed CA valid for two days. */
    async ca(name: string, subject: string): Promise<void> {
      await run("openssl", [
        ...["req", "-x509", ...EC_KEY, "-keyout", f(`${name}.key`), "-out", f(`${name}.crt`)],
        ...["-days", "2", "-subj", subject],
      ]);
    },
    /** A certificate for `altNames` (e.g. `IP:127.0.0.1`) signed by the CA `caName`, valid a day. */
    async issue(name: string, caName: string, subject: string, altNames: string) {
      await run("openssl", [
        ...["req", ...EC_KEY, "-keyout", f(`${name}.key`), "-out", f(`${name}.csr`), "-subj", subject],
      ]);
      writeFileSync(f(`${name}.ext`), `subjectAltName=${altNames}\n`);
      await run("openssl", [
        ...["x509", "-req", "-in", f(`${name}.csr`), "-CA", f(`${caName}.crt`), "-CAkey", f(`${caName}.key`)],
        ...["-CAcreateserial", "-out", f(`${name}.crt`), "-days", "1", "-extfile", f(`${name}.ext`)],
      ]);
      return { cert: readFileSync(f(`${name}.crt`)), key: readFileSync(f(`${name}.key`)) };
    },
  };
}
