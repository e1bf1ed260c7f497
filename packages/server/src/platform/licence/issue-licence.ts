#!/usr/bin/env -S npx tsx
// The vendor's licence tool, run with tsx; it never ships a private key and the server never
// needs one.
//
//   tsx src/platform/licence/issue-licence.ts generate-key --out vendor-licence-key.jwk.json
//     writes a new Ed25519 private JWK (mode 0600) and prints the public JWK for
//     licence-public-key.ts
//   tsx src/platform/licence/issue-licence.ts sign --key vendor-licence-key.jwk.json --licence-id L-0001 \
//     --site "Example University" --max-nodes 500 --expires-at 2027-01-01T00:00:00Z
//     [--not-before 2026-01-01T00:00:00Z]
//     prints the licence (a compact JWS) for the site's configuration
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { signLicence } from "./licence.js";

/** Where the tool writes (tests capture it). */
export type IssueLicenceIo = { out: (line: string) => void; err: (line: string) => void };

/** A command line the tool cannot act on. */
class UsageError extends Error {
  readonly code = "USAGE";
}

const USAGE = `usage:
  issue-licence generate-key --out <private-jwk-file>
  issue-licence sign --key <private-jwk-file> --licence-id <id> --site <name> --max-nodes <n>
                     --expires-at <RFC 3339> [--not-before <RFC 3339>]`;

/**
 * Runs the tool with `argv` (without node and the script); resolves to the exit code.
 *
 * @example
 * ```ts
 * await runIssueLicence(["generate-key", "--out", "key.jwk.json"], { out: console.log, err: console.error });
 * ```
 */
export async function runIssueLicence(argv: string[], io: IssueLicenceIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === "generate-key") {
      const { values } = parseArgs({ args: rest, options: { out: { type: "string" } }, strict: true });
      if (!values.out) throw new UsageError("--out is required");
      const { privateKey, publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
      const kid = `jobsight-licence-${randomUUID().slice(0, 8)}`;
      const privateJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg: "EdDSA" };
      await writeFile(values.out, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      io.out(JSON.stringify({ ...(await exportJWK(publicKey)), kid, alg: "EdDSA" }));
      return 0;
    }
    if (command === "sign") {
      const { values } = parseArgs({
        args: rest,
        strict: true,
        options: {
          key: { type: "string" },
          "licence-id": { type: "string" },
          site: { type: "string" },
          "max-nodes": { type: "string" },
          "not-before": { type: "string" },
          "expires-at": { type: "string" },
        },
      });
      for (const name of ["key", "licence-id", "site", "max-nodes", "expires-at"] as const) {
        if (!values[name]) throw new UsageError(`--${name} is required`);
      }
      const jwk = JSON.parse(await readFile(values.key as string, "utf8")) as JWK;
      if (!jwk.d) throw new UsageError(`${values.key} holds no private key`);
      const licence = await signLicence(
        {
          licenceId: values["licence-id"] as string,
          site: values.site as string,
          maxNodes: Number(values["max-nodes"]),
          notBefore: values["not-before"] ?? new Date().toISOString(),
          expiresAt: values["expires-at"] as string,
        },
        jwk,
      );
      io.out(licence);
      return 0;
    }
    io.err(USAGE);
    return 2;
  } catch (error) {
    io.err(`issue-licence: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runIssueLicence(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
}
