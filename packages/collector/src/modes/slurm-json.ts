import type { JobRecord, JobState } from "@jobsight/schemas/light";
import { CommandError } from "../errors.js";

// Tolerant readers for the JSON of squeue/sacct across SLURM versions: 22.05 (openapi v0.0.38)
// prints plain numbers and strings; 23.02+ (v0.0.39+) wraps numbers as {set, infinite, number}
// and states as arrays of flags.

/** A number, or `undefined` for null, unset or infinite. */
export function num(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (v && typeof v === "object" && "number" in v) {
    const o = v as { set?: boolean; infinite?: boolean; number?: unknown };
    if (o.set === false || o.infinite === true) return undefined;
    return typeof o.number === "number" ? o.number : undefined;
  }
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** A non-empty string, or the first of an array of strings. */
export function str(v: unknown): string | undefined {
  if (typeof v === "string") return v === "" ? undefined : v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0] || undefined;
  return undefined;
}

/** Where a job is: waiting, running, or ended with a final state. */
export type SlurmPhase = { phase: "submitted" | "started" } | { phase: "ended"; state: JobState };

const ended: Record<string, JobState> = {
  COMPLETED: "COMPLETED",
  FAILED: "FAILED",
  OUT_OF_MEMORY: "OUT_OF_MEMORY",
  TIMEOUT: "TIMEOUT",
  DEADLINE: "TIMEOUT",
  CANCELLED: "CANCELLED",
  REVOKED: "CANCELLED",
  NODE_FAIL: "NODE_FAIL",
  BOOT_FAIL: "FAILED",
  SPECIAL_EXIT: "FAILED",
  PREEMPTED: "PREEMPTED",
};
const running = new Set([
  "RUNNING",
  "COMPLETING",
  "SUSPENDED",
  "STOPPED",
  "CONFIGURING",
  "RESIZING",
  "SIGNALING",
  "STAGE_OUT",
]);

/**
 * Map a SLURM state (`"CANCELLED by 1000"`, `["FAILED"]`, `{ current: "TIMEOUT" }`) to a phase.
 *
 * @example
 * ```ts
 * slurmPhase("CANCELLED by 0"); // { phase: "ended", state: "CANCELLED" }
 * ```
 */
export function slurmPhase(v: unknown): SlurmPhase | undefined {
  const raw =
    v && typeof v === "object" && !Array.isArray(v) && "current" in v
      ? (v as { current: unknown }).current
      : v;
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? [raw] : [];
  for (const s of list) {
    const word = s.trim().split(/\s+/)[0].toUpperCase();
    if (ended[word]) return { phase: "ended", state: ended[word] };
  }
  for (const s of list) {
    const word = s.trim().split(/\s+/)[0].toUpperCase();
    if (running.has(word)) return { phase: "started" };
    if (word === "PENDING" || word.startsWith("REQUEUE")) return { phase: "submitted" };
  }
  return undefined;
}

/** Exit code or signal, and whether the source can be believed (see {@link exitFromSacct}). */
export type ExitInfo = { exitCode?: number; signal?: number; trusted: boolean };

/** Decode a raw wait status as `squeue --json` (22.05) prints it: 256 is exit 1, 9 is signal 9. */
export function exitFromWaitStatus(status: number): ExitInfo {
  const signal = status & 0x7f;
  if (signal !== 0) return { signal, trusted: true };
  return { exitCode: (status >> 8) & 0xff, trusted: true };
}

/**
 * Decode sacct's `exit_code` object (`{status, return_code, signal}`). SLURM 22.05 reports exit
 * codes 1 and 3 as `{status: "SUCCESS", return_code: 0}`: a SUCCESS 0 on a FAILED job is marked
 * untrusted so the caller can ask `sacct -P` instead. Signals come through correctly.
 */
export function exitFromSacct(v: unknown, state?: JobState): ExitInfo {
  if (typeof v === "number") return exitFromWaitStatus(v);
  if (!v || typeof v !== "object") return { trusted: false };
  const o = v as { status?: unknown; return_code?: unknown; signal?: { signal_id?: unknown; id?: unknown } };
  const status = (str(o.status) ?? "").toUpperCase();
  const signal = num(o.signal?.signal_id) ?? num(o.signal?.id);
  if (status === "SIGNALED" && signal !== undefined && signal >= 1) return { signal, trusted: true };
  const code = num(o.return_code);
  if (code === undefined) return { trusted: false };
  const suspicious = status === "SUCCESS" && code === 0 && state === "FAILED";
  return { exitCode: code & 0xff, trusted: !suspicious };
}

/** Decode `sacct -P` ExitCode `1:0` (exit:signal). */
export function exitFromParsable(text: string): ExitInfo | undefined {
  const m = /^(\d+):(\d+)$/.exec(text.trim());
  if (!m) return undefined;
  const signal = Number(m[2]);
  return signal > 0 ? { signal, trusted: true } : { exitCode: Number(m[1]) & 0xff, trusted: true };
}

/** TRES of sacct (`[{type, name, count}]`) keyed `cpu`, `mem`, `node`, `gres/gpu`, … */
export function tresFromList(v: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (!Array.isArray(v)) return out;
  for (const t of v as { type?: unknown; name?: unknown; count?: unknown }[]) {
    const type = str(t?.type);
    const count = num(t?.count);
    if (!type || count === undefined) continue;
    const name = str(t.name);
    out.set(name ? `${type}/${name}` : type, count);
  }
  return out;
}

const unitMiB: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024, P: 1024 ** 3 };

/** TRES of squeue (`cpu=1,mem=64M,node=1,billing=1,gres/gpu=2`) with memory in MB. */
export function tresFromString(v: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const text = str(v);
  if (!text) return out;
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const m = /^([\d.]+)([KMGTP])?$/i.exec(part.slice(eq + 1).trim());
    if (!m) continue;
    const n = Number(m[1]);
    out.set(key, key === "mem" && m[2] ? n * unitMiB[m[2].toUpperCase()] : n);
  }
  return out;
}

/** TRES turned into the schema's resource request (memory from MB to bytes). */
export function resourcesFromTres(
  tres: Map<string, number>,
  walltimeMinutes?: number,
): JobRecord["allocated"] & object {
  const r: NonNullable<JobRecord["allocated"]> = {};
  const mem = tres.get("mem");
  if (mem !== undefined && mem > 0) r.memoryBytes = Math.round(mem * 1024 * 1024);
  const cpu = tres.get("cpu");
  if (cpu !== undefined && cpu >= 1) r.cores = Math.round(cpu);
  const node = tres.get("node");
  if (node !== undefined && node >= 1) r.nodes = Math.round(node);
  let gpus: number | undefined;
  for (const [k, n] of tres)
    if (k === "gres/gpu" || (k.startsWith("gres/gpu:") && gpus === undefined)) gpus = n;
  if (gpus !== undefined) r.gpus = Math.round(gpus);
  if (walltimeMinutes !== undefined && walltimeMinutes > 0)
    r.walltimeSeconds = Math.round(walltimeMinutes * 60);
  return r;
}

/** A UNIX time in seconds as RFC 3339, or undefined for 0/unset. */
export function isoTime(v: unknown): string | undefined {
  const n = num(v);
  return n !== undefined && n > 0 ? new Date(n * 1000).toISOString() : undefined;
}

/** `sacct -S` wants local time without a zone. */
export function sacctTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** The `jobs` array of `squeue --json` or `sacct --json` (`what` names the command in errors). */
export function jobsOf(text: string, what: string): Record<string, unknown>[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CommandError("PARSE_FAILED", `${what} did not print JSON: ${(error as Error).message}`);
  }
  const jobs = (parsed as { jobs?: unknown }).jobs;
  if (!Array.isArray(jobs)) throw new CommandError("PARSE_FAILED", `${what} JSON has no jobs array`);
  return jobs as Record<string, unknown>[];
}
