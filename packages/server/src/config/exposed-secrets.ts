import { stat } from "node:fs/promises";
import type { ConfigIssue } from "./config-error.js";
import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";
import type { ServerConfig } from "./server-config.js";

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Paths of the secret options (`secret: true` in the option table) that a raw configuration layer
 * sets, items and entries named: `auth.tokens[0].token`, `postgres.url`.
 *
 * @example
 * ```ts
 * secretPathsIn({ auth: { tokens: [{ token: "t", role: "collector" }] } }); // ["auth.tokens[0].token"]
 * ```
 */
export function secretPathsIn(raw: Raw): string[] {
  return serverOptions
    .filter((spec: OptionSpec) => spec.secret)
    .flatMap((spec: OptionSpec) => setPaths(raw, spec.path.split("."), ""));
}

function setPaths(node: unknown, keys: string[], at: string): string[] {
  if (keys.length === 0) return node === undefined || node === null || node === "" ? [] : [at];
  if (!isObject(node)) return [];
  const [key, ...rest] = keys;
  const below = (name: string) => (at ? `${at}.${name}` : name);
  if (key.startsWith("<")) return Object.entries(node).flatMap(([name, v]) => setPaths(v, rest, below(name)));
  if (!key.endsWith("[]")) return setPaths(node[key], rest, below(key));
  const name = key.slice(0, -2);
  const items = node[name];
  return Array.isArray(items) ? items.flatMap((item, i) => setPaths(item, rest, `${below(name)}[${i}]`)) : [];
}

/**
 * The problem of a configuration file that every user of the machine may read (mode & 0o004)
 * while it holds secrets; `undefined` when it is private enough or holds none. Group-readable
 * files are allowed, so a root-owned file can be shared with the server's group.
 *
 * @example
 * ```ts
 * exposedSecretsIssue("/etc/jobsight/server.json", 0o100644, raw);
 * // { path: "/etc/jobsight/server.json", message: "is readable by every user (mode 0644) and holds secrets (postgres.url); run chmod 600 /etc/jobsight/server.json" }
 * ```
 */
export function exposedSecretsIssue(file: string, mode: number, raw: Raw): ConfigIssue | undefined {
  if ((mode & 0o004) === 0) return undefined;
  const secrets = secretPathsIn(raw);
  if (secrets.length === 0) return undefined;
  const octal = (mode & 0o7777).toString(8).padStart(4, "0");
  return {
    path: file,
    message: `is readable by every user (mode ${octal}) and holds secrets (${secrets.join(", ")}); run chmod 600 ${file}`,
  };
}

/** Owner and mode of a file, as `stat` gives them. */
export type FileMode = { mode: number; uid: number };

/**
 * The problem of a file that holds a secret by itself (the TLS private key, the licence) and
 * others may read; `undefined` when only its owner can. Read by every user is refused; read by
 * its group only when the file is root's, so a root-owned file can be shared with the server's
 * group (`0640`), as PostgreSQL allows for its own key.
 *
 * @example
 * ```ts
 * exposedFileIssue("tls.keyFile", "/etc/jobsight/tls.key", { mode: 0o100644, uid: 0 });
 * // { path: "tls.keyFile", message: "/etc/jobsight/tls.key is readable by every user (mode 0644); run chmod 600 /etc/jobsight/tls.key" }
 * ```
 */
export function exposedFileIssue(option: string, file: string, s: FileMode): ConfigIssue | undefined {
  const octal = (s.mode & 0o7777).toString(8).padStart(4, "0");
  const fix = `run chmod 600 ${file}`;
  if ((s.mode & 0o004) !== 0)
    return { path: option, message: `${file} is readable by every user (mode ${octal}); ${fix}` };
  if ((s.mode & 0o040) !== 0 && s.uid !== 0)
    return {
      path: option,
      message: `${file} is readable by its group (mode ${octal}) and not owned by root; ${fix}`,
    };
  return undefined;
}

/**
 * Problems of the secret files a configuration names (`tls.keyFile`, `licence.file`) that others
 * may read (see {@link exposedFileIssue}). A file that cannot be examined is left to the code that
 * reads it, which says why.
 *
 * @example
 * ```ts
 * const issues = await exposedSecretFileIssues(config); // [] when every secret file is private
 * ```
 */
export async function exposedSecretFileIssues(config: ServerConfig): Promise<ConfigIssue[]> {
  const files: [string, string | undefined][] = [
    ["tls.keyFile", config.tls?.keyFile],
    ["licence.file", config.licence.file],
  ];
  const issues: ConfigIssue[] = [];
  for (const [option, file] of files) {
    if (!file) continue;
    const s = await stat(file).catch(() => undefined);
    const issue = s && exposedFileIssue(option, file, s);
    if (issue) issues.push(issue);
  }
  return issues;
}
