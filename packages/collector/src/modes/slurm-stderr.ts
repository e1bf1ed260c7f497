import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { JobOutcome } from "@jobsight/schemas/light";
import { num, str } from "./slurm-json.js";
import type { OutputPatterns } from "./slurm-output-patterns.js";

/** The most of a job's stderr ever read: the tail that names a crash, never the whole file. */
export const MAX_STDERR_TAIL_BYTES = 8192;

// SLURM's "not set" task id, which sbatch substitutes for %a outside an array.
const NO_TASK = "4294967294";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

/**
 * Expand sbatch's filename pattern (`%j`, `%u`, `%x`, `%A`, `%a`, `%N`, `%%`, zero-padded as
 * `%4a`) for one job; a pattern with a backslash is taken literally, as sbatch does. Undefined
 * when it holds a placeholder that names a step or task (`%J`, `%s`, `%t`, `%n`): no one file.
 *
 * @example
 * ```ts
 * expandOutputPattern("logs/%x-%A_%a.err", { jobId: "12", user: "ana", jobName: "fit", arrayJobId: "10", taskId: 2 });
 * // "logs/fit-10_2.err"
 * ```
 */
export function expandOutputPattern(
  pattern: string,
  job: { jobId: string; user: string; jobName?: string; arrayJobId?: string; taskId?: number; node?: string },
): string | undefined {
  if (pattern.includes("\\")) return pattern.replaceAll("\\", "");
  let unknown = false;
  const out = pattern.replace(/%(\d*)([%AaJjNnstux])/g, (_all, width: string, c: string) => {
    const pad = (v: string) => v.padStart(Number(width || 0), "0");
    switch (c) {
      case "%":
        return "%";
      case "A":
        return pad(job.arrayJobId ?? job.jobId);
      case "a":
        return pad(job.taskId !== undefined ? String(job.taskId) : NO_TASK);
      case "j":
        return pad(job.jobId);
      case "u":
        return job.user;
      case "x":
        return job.jobName ?? "";
      case "N":
        if (job.node) return job.node.split(".")[0];
        unknown = true;
        return "";
      default:
        unknown = true;
        return "";
    }
  });
  return unknown ? undefined : out;
}

/**
 * Where one job of `sacct --json` wrote its stderr: `stderr_expanded` (24.05+), else `stderr`
 * (23.02+, unexpanded), else its stdout file (sbatch sends stderr there without `-e`), else the
 * patterns squeue showed while the job ran (`known`: 22.05's sacct records no path), else sbatch's
 * default `slurm-%j.out` (`slurm-%A_%a.out` for an array task). Relative paths are taken from the
 * job's working directory. Undefined when it cannot be told.
 */
export function stderrPathOf(job: Json, user: string, known?: OutputPatterns): string | undefined {
  const id = num(job.job_id);
  const workDir = str(job.working_directory) ?? known?.workDir;
  if (id === undefined) return undefined;
  const arrayJob = num(obj(job.array).job_id);
  const taskId = num(obj(job.array).task_id);
  const isArray = !!arrayJob && taskId !== undefined;
  const fields = {
    jobId: String(id),
    user,
    jobName: str(job.name),
    node: str(job.nodes),
    ...(isArray ? { arrayJobId: String(arrayJob), taskId } : {}),
  };
  const expanded = str(job.stderr_expanded) ?? str(job.stdout_expanded);
  const raw =
    str(job.stderr) ??
    str(job.stdout) ??
    known?.stderr ??
    known?.stdout ??
    (isArray ? "slurm-%A_%a.out" : "slurm-%j.out");
  const path = expanded ?? expandOutputPattern(raw, fields);
  if (!path || path === "/dev/null") return undefined;
  if (isAbsolute(path)) return path;
  return workDir && isAbsolute(workDir) ? join(workDir, path) : undefined;
}

/**
 * The last `maxBytes` (at most {@link MAX_STDERR_TAIL_BYTES}) of a regular file owned by
 * `ownerUid`, cut to whole lines, or undefined when it cannot be read. The owner check keeps a
 * job from naming someone else's file (`-e /etc/shadow`) for a privileged collector to read.
 * Never follows a final symlink, never blocks on a FIFO or a device.
 *
 * @example
 * ```ts
 * const tail = await readStderrTail("/home/ana/slurm-12.out", { ownerUid: 1001 });
 * ```
 */
export async function readStderrTail(
  path: string,
  options: { ownerUid: number; maxBytes?: number },
): Promise<JobOutcome["stderrTail"] | undefined> {
  const limit = Math.max(0, Math.min(options.maxBytes ?? MAX_STDERR_TAIL_BYTES, MAX_STDERR_TAIL_BYTES));
  if (limit === 0) return undefined;
  let file: Awaited<ReturnType<typeof open>> | undefined;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = await file.stat();
    if (!st.isFile() || st.uid !== options.ownerUid) return undefined;
    const length = Math.min(st.size, limit);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await file.read(buf, 0, length, st.size - length);
    let text = buf.subarray(0, bytesRead).toString("utf8");
    const truncated = st.size > length;
    // The first line of a cut tail is a fragment (maybe half a UTF-8 character): drop it.
    if (truncated) text = text.slice(text.indexOf("\n") + 1);
    if (text.length > MAX_STDERR_TAIL_BYTES) text = text.slice(-MAX_STDERR_TAIL_BYTES);
    return { path: path.slice(0, 4096), text, truncated };
  } catch {
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/** A user's uid from `getent passwd <user>` (`name:x:uid:gid:…`), or undefined. */
export async function uidFromGetent(
  run: (command: string, args: string[]) => Promise<string>,
  user: string,
): Promise<number | undefined> {
  const uid = (await run("getent", ["passwd", user])).split(":")[2];
  return uid !== undefined && /^\d+$/.test(uid.trim()) ? Number(uid) : undefined;
}
