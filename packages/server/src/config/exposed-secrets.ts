import type { ConfigIssue } from "./config-error.js";
import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";

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
