import type { NodeEvent } from "@jobsight/schemas/light";

/** One `/dev/kmsg` record: `priority,sequence,timestamp_us,flags[,…];message` plus ` KEY=value` lines. */
export type KmsgRecord = {
  /** Syslog level, 0 (emerg) … 7 (debug). */
  level: number;
  facility: number;
  sequence: number;
  /** Microseconds since boot. */
  timestampUs: number;
  /** `-`, or `c` for a continuation fragment. */
  flags: string;
  message: string;
  /** Device properties from the continuation lines, e.g. `DEVICE=+pci:0000:3b:00.0`. */
  properties: Record<string, string>;
};

/**
 * Parse one kmsg record (the text one `read()` of `/dev/kmsg` returns). Escaped bytes (`\x0a`)
 * in the message are kept as written.
 *
 * @example
 * ```ts
 * parseKmsgRecord("4,1234,5678901,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n")?.level; // 4
 * ```
 */
export function parseKmsgRecord(text: string): KmsgRecord | undefined {
  const semi = text.indexOf(";");
  if (semi < 0) return undefined;
  const head = text.slice(0, semi).split(",");
  if (head.length < 4) return undefined;
  const prio = Number(head[0]);
  const sequence = Number(head[1]);
  const timestampUs = Number(head[2]);
  if (![prio, sequence, timestampUs].every(Number.isFinite)) return undefined;
  const lines = text.slice(semi + 1).split("\n");
  const properties: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    if (!line.startsWith(" ")) continue;
    const eq = line.indexOf("=");
    if (eq > 1) properties[line.slice(1, eq)] = line.slice(eq + 1);
  }
  return {
    level: prio & 7,
    facility: prio >> 3,
    sequence,
    timestampUs,
    flags: head[3],
    message: lines[0],
    properties,
  };
}

/** What an Xid line says. */
export type XidDetails = NonNullable<NodeEvent["xid"]>;

// NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.
// NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.
// NVRM: Xid (0000:3b:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 1): Out Of Range Address   (older drivers)
const xidLine =
  /NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?\): (\d+)(.*)$/;

/**
 * Parse an NVIDIA Xid message.
 *
 * @example
 * ```ts
 * parseXid("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.");
 * // { code: 79, pciBusId: "0000:3b:00", pid: 1234, processName: "python", detail: "GPU has fallen off the bus." }
 * ```
 */
export function parseXid(message: string): XidDetails | undefined {
  const m = xidLine.exec(message);
  if (!m) return undefined;
  const code = Number(m[2]);
  if (!Number.isInteger(code) || code < 1 || code > 1023) return undefined;
  const xid: XidDetails = { code, pciBusId: m[1].toLowerCase() };
  let rest = m[3].replace(/^,\s*/, "");
  const pid = /^pid=([^,]*),\s*/.exec(rest);
  if (pid) {
    const n = Number(pid[1].replace(/'/g, ""));
    if (Number.isInteger(n) && n >= 0) xid.pid = n;
    rest = rest.slice(pid[0].length);
  }
  const name = /^name=([^,]*),\s*/.exec(rest);
  if (name) {
    const v = name[1].replace(/'/g, "");
    if (v !== "" && v !== "<unknown>") xid.processName = v.slice(0, 256);
    rest = rest.slice(name[0].length);
  }
  if (rest.trim() !== "") xid.detail = rest.trim().slice(0, 2048);
  return xid;
}

/** What an OOM kill's lines say. */
export type OomDetails = NonNullable<NodeEvent["oomKill"]>;

// Memory cgroup out of memory: Killed process 1234 (python) total-vm:2000000kB, anon-rss:1000000kB, file-rss:1000kB, shmem-rss:0kB, UID:1000 pgtables:2100kB oom_score_adj:0
const killedLine =
  /(?:Memory cgroup out of memory|Out of memory(?: \([^)]*\))?): Killed process (\d+) \((.*)\) total-vm:(\d+)kB, anon-rss:(\d+)kB, file-rss:(\d+)kB, shmem-rss:(\d+)kB/;

/**
 * Parse the `Killed process …` line of an OOM kill (cgroup or global).
 *
 * @example
 * ```ts
 * parseOomKilled("Memory cgroup out of memory: Killed process 1234 (python) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0")?.pid; // 1234
 * ```
 */
export function parseOomKilled(message: string): OomDetails | undefined {
  const m = killedLine.exec(message);
  if (!m) return undefined;
  return {
    pid: Number(m[1]),
    processName: (m[2] || "?").slice(0, 256),
    totalVmBytes: Number(m[3]) * 1024,
    anonRssBytes: Number(m[4]) * 1024,
    fileRssBytes: Number(m[5]) * 1024,
    shmemRssBytes: Number(m[6]) * 1024,
  };
}

/** The `oom-kill:constraint=…,oom_memcg=…,task_memcg=…,task=…,pid=…,uid=…` summary line. */
export type OomKillSummary = {
  pid: number;
  task?: string;
  constraint?: string;
  oomMemcg?: string;
  taskMemcg?: string;
};

/**
 * Parse the kernel's one-line OOM summary (printed just before `Killed process`).
 *
 * @example
 * ```ts
 * parseOomKillSummary("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a,task_memcg=/a/b,task=python,pid=1234,uid=1000");
 * // { pid: 1234, task: "python", constraint: "CONSTRAINT_MEMCG", oomMemcg: "/a", taskMemcg: "/a/b" }
 * ```
 */
export function parseOomKillSummary(message: string): OomKillSummary | undefined {
  const at = message.indexOf("oom-kill:");
  if (at < 0) return undefined;
  const fields = new Map<string, string>();
  for (const part of message.slice(at + 9).split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const pid = Number(fields.get("pid"));
  if (!Number.isInteger(pid) || pid < 1) return undefined;
  const out: OomKillSummary = { pid };
  const set = (key: keyof OomKillSummary, field: string) => {
    const v = fields.get(field);
    if (v && v !== "(null)") (out as Record<string, unknown>)[key] = v;
  };
  set("task", "task");
  set("constraint", "constraint");
  set("oomMemcg", "oom_memcg");
  set("taskMemcg", "task_memcg");
  return out;
}
