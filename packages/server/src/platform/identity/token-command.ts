import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadServerConfig, setPath } from "../../config/config-sources.js";
import { openStorage } from "../../data-plane/storage/open-storage.js";
import type { ApiTokenRecord } from "../../data-plane/stores/api-token-store.js";
import { JobsightError } from "../../errors.js";
import { type ApiTokenRole, ApiTokens } from "./api-tokens.js";

/** Where the command writes (tests capture it). */
export type TokenCommandIo = { out: (text: string) => void; err: (text: string) => void };

const USAGE = `Usage: jobsight-server token <create|list|revoke> [options]

  create --role collector|scheduler --cluster <id> [--user <name>] [--label <text>]
         prints the new token once; only its sha256 is stored. The cluster must be
         registered (POST /v1/clusters) unless ingest.requireRegisteredCluster is false
  list   [--json]    every token: id, prefix, role, cluster, label, created, revoked
  revoke <id>        refuses the token from the next request on

Common options: --config <file>, --database-url <url>, --data-dir <dir>
`;

/**
 * Runs `token create|list|revoke` against `tokens`. Whoever can run it reaches the server's
 * database, which is the platform team: it is the platform role's way to issue collector and
 * scheduler credentials. Resolves to the exit code.
 *
 * @example
 * ```ts
 * await tokenCommand(["create", "--role", "collector", "--cluster", "hpc1"], tokens, { out, err });
 * ```
 */
export async function tokenCommand(args: string[], tokens: ApiTokens, io: TokenCommandIo): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: false,
    options: {
      role: { type: "string" },
      cluster: { type: "string" },
      user: { type: "string" },
      label: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const text = (key: string) => (typeof values[key] === "string" ? (values[key] as string) : undefined);
  try {
    if (action === "create") {
      const role = text("role");
      const cluster = text("cluster");
      if (!role || !cluster) return usage(io, "--role and --cluster are required");
      const user = text("user");
      const label = text("label");
      const { token, record } = await tokens.issue({
        role: role as ApiTokenRole,
        cluster,
        ...(user ? { user } : {}),
        ...(label ? { label } : {}),
      });
      io.out(`${token}\n`);
      io.err(
        `token ${record.id} (${record.role} on ${record.cluster}) created; it is shown only this once\n`,
      );
      return 0;
    }
    if (action === "list") {
      const records = await tokens.list();
      io.out(values.json ? `${JSON.stringify(records.map(listed))}\n` : records.map(line).join(""));
      return 0;
    }
    if (action === "revoke") {
      const id = positionals[0];
      if (!id) return usage(io, "revoke needs the token's id (see `token list`)");
      const revoked = await tokens.revoke(id);
      io.err(revoked ? `token ${id} revoked\n` : `no live token ${id}\n`);
      return revoked ? 0 : 1;
    }
    return usage(io, action ? `unknown action ${action}` : undefined);
  } catch (error) {
    if (!(error instanceof JobsightError)) throw error;
    const details = error.errors?.map((e) => `${e.path}: ${e.message}`).join("; ");
    io.err(`${details || error.message}\n`);
    return 2;
  }
}

function usage(io: TokenCommandIo, problem?: string): number {
  io.err(`${problem ? `${problem}\n\n` : ""}${USAGE}`);
  return 2;
}

function listed(r: ApiTokenRecord) {
  return {
    id: r.id,
    ...(r.prefix ? { prefix: r.prefix } : {}),
    role: r.role,
    ...(r.cluster ? { cluster: r.cluster } : {}),
    ...(r.user ? { user: r.user } : {}),
    ...(r.label ? { label: r.label } : {}),
    createdAt: r.createdAt.toISOString(),
    ...(r.revokedAt ? { revokedAt: r.revokedAt.toISOString() } : {}),
  };
}

function line(r: ApiTokenRecord): string {
  const state = r.revokedAt ? `revoked ${r.revokedAt.toISOString()}` : "live";
  // Tokens stored without a prefix (created through the store directly) show "-"; unbound ones "all".
  const prefix = r.prefix ? `${r.prefix}…` : "-";
  return `${r.id}  ${prefix}  ${r.role}  ${r.cluster ?? "all"}  ${state}  ${r.label ?? ""}\n`;
}

/**
 * `jobsight-server token …`: opens the configured database and runs {@link tokenCommand}.
 *
 * @example
 * ```ts
 * process.exitCode = await runTokenCommand(["list", "--config", "jobsight.json"]);
 * ```
 */
export async function runTokenCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    allowPositionals: true,
    strict: false,
    options: {
      config: { type: "string" },
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
    },
  });
  const overrides: Record<string, unknown> = {};
  if (typeof values["database-url"] === "string") setPath(overrides, "postgres.url", values["database-url"]);
  if (typeof values["data-dir"] === "string") setPath(overrides, "dataDir", values["data-dir"]);
  const file = typeof values.config === "string" ? values.config : undefined;
  const config = await loadServerConfig({ file, env: process.env, overrides });
  const opened = await openStorage({
    url: config.postgres.url,
    embeddedDir: join(config.dataDir, "postgres"),
    embeddedBinDir: config.postgres.embeddedBinDir,
    // Never starts or stops the database of a running server: refused while one owns the folder.
    embeddedOwner: {
      kind: "command",
      name: "jobsight-server token",
      instead: (server) =>
        `manage tokens through its API (${server.url ?? "<its URL>"}/v1/tokens, with an admin token)`,
    },
    timescale: config.postgres.timescale,
  });
  try {
    // Tokens only for registered clusters, unless ingest accepts clusters nobody registered.
    const clusters = config.ingest.requireRegisteredCluster ? opened.storage.clusters : undefined;
    const tokens = new ApiTokens(opened.storage.tokens, { clusters });
    const rest = args.filter((_a, i) => !isCommonOption(args, i) && !isCommonOption(args, i - 1));
    return await tokenCommand(rest, tokens, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  } finally {
    await opened.close();
  }
}

const COMMON = new Set(["--config", "--database-url", "--data-dir"]);

function isCommonOption(args: string[], i: number): boolean {
  return i >= 0 && COMMON.has(args[i] ?? "");
}
