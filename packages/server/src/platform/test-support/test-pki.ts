import { execFile } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** A throwaway PKI made with openssl: CAs and certificates they sign, as files in one folder. */
export type TestPki = {
  dir: string;
  /** Path of a file of the PKI, e.g. `file("ca.crt")`. */
  file(name: string): string;
  /** A self-signed CA `<name>.crt`/`<name>.key`. */
  ca(name: string, cn: string): Promise<void>;
  /**
   * `<name>.crt`/`<name>.key` (mode 0600) for `cn`, signed by CA `by`, with an optional
   * subjectAltName and further extension lines (e.g. `extendedKeyUsage=clientAuth`).
   */
  issue(name: string, cn: string, by: string, san?: string, extensions?: string): Promise<void>;
  dispose(): Promise<void>;
};

/**
 * A folder for test certificates, removed by `dispose()`.
 *
 * @example
 * ```ts
 * const pki = await testPki();
 * await pki.ca("ca", "Test CA");
 * await pki.issue("server", "server", "ca", "IP:127.0.0.1");
 * ```
 */
export async function testPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), "jobsight-pki-"));
  const file = (name: string) => join(dir, name);
  return {
    dir,
    file,
    async ca(name, cn) {
      await run("openssl", [
        "req",
        "-x509",
        ...EC,
        "-keyout",
        file(`${name}.key`),
        "-out",
        file(`${name}.crt`),
        "-days",
        "2",
        "-subj",
        `/CN=${cn}`,
      ]);
    },
    async issue(name, cn, by, san, extensions) {
      await run("openssl", [
        "req",
        ...EC,
        "-keyout",
        file(`${name}.key`),
        "-out",
        file(`${name}.csr`),
        "-subj",
        `/CN=${cn}`,
      ]);
      const lines = [...(san ? [`subjectAltName=${san}`] : []), ...(extensions ? [extensions] : [])];
      const ext = lines.length > 0 ? ["-extfile", file(`${name}.ext`)] : [];
      if (lines.length > 0) await writeFile(file(`${name}.ext`), `${lines.join("\n")}\n`);
      await run("openssl", [
        "x509",
        "-req",
        "-in",
        file(`${name}.csr`),
        "-CA",
        file(`${by}.crt`),
        "-CAkey",
        file(`${by}.key`),
        "-CAcreateserial",
        "-days",
        "1",
        ...ext,
        "-out",
        file(`${name}.crt`),
      ]);
      await chmod(file(`${name}.key`), 0o600);
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
