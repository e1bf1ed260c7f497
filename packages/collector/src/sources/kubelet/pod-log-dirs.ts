import { readdirSync } from "node:fs";

/** Where the kubelet keeps pods' container logs (its `podLogsDir`). */
export const DEFAULT_POD_LOGS_DIR = "/var/log/pods";

// `<namespace>_<name>_<uid>`: namespaces and pod names are DNS names, which hold no "_".
const LOG_DIR = /^([a-z0-9][a-z0-9-]*)_([a-z0-9][a-z0-9.-]*)_([0-9a-fA-F-]+)$/;

/**
 * The UIDs of the pods on this node by `<namespace>/<name>`, from the folders the kubelet makes
 * for their logs (`<podLogsDir>/<namespace>_<name>_<uid>`): the one place on a node that ties the
 * names the PodResources API gives to the UIDs the cgroup tree uses. A name can map to more than
 * one UID while an old pod's folder awaits removal. Undefined when the folder cannot be read.
 *
 * @example
 * ```ts
 * podUidsByName("/var/log/pods").get("ml/train-0"); // ["4a5b6c7d-1111-2222-3333-444455556666"]
 * ```
 */
export function podUidsByName(dir: string = DEFAULT_POD_LOGS_DIR): Map<string, string[]> | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const out = new Map<string, string[]>();
  for (const name of names) {
    const m = LOG_DIR.exec(name);
    if (!m) continue;
    const key = `${m[1]}/${m[2]}`;
    const uids = out.get(key) ?? [];
    uids.push(m[3].toLowerCase());
    out.set(key, uids);
  }
  return out;
}
