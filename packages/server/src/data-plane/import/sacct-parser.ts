import type { Readable } from "node:stream";
import type { ResourceRequest } from "@jobsight/schemas";
import { streamJsonArray } from "./json-array-stream.js";
import type { SacctJob, SacctStep } from "./sacct-job.js";
import { expandHostlist } from "./slurm-units.js";

type Raw = Record<string, unknown>;

const MB = 2 ** 20;

/** A job of a sacct export, or why it could not be read; `index` is its 1-based position. */
export type SacctJsonItem = { index: number; job: SacctJob } | { index: number; error: string };

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A number in any of sacct's JSON shapes: a plain number (openapi v0.0.38) or
 * `{ set, infinite, number }` (v0.0.39 and newer); `undefined` when unset or infinite.
 */
export function slurmNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (isObject(value)) {
    if (value.set === false || value.infinite === true) return undefined;
    return slurmNumber(value.number);
  }
  return undefined;
}

/** The first word of a state: a string (v0.0.38) or a list of flags (newer). */
function stateWord(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

/** `{status, return_code, signal}` of any version → exit code and signal. */
function exitStatus(value: unknown): { exitCode?: number; signal?: number } {
  if (!isObject(value)) return {};
  const out: { exitCode?: number; signal?: number } = {};
  const code = slurmNumber(value.return_code);
  if (code !== undefined && code >= 0 && code <= 255) out.exitCode = code;
  const sig = value.signal;
  const signal = isObject(sig) ? (slurmNumber(sig.signal_id) ?? slurmNumber(sig.id)) : undefined;
  if (signal !== undefined && signal >= 1 && signal <= 64) out.signal = signal;
  return out;
}

/** A TRES list (`[{type, name, count}]`) as resources; memory in MB becomes bytes. */
function tresResources(list: unknown, memoryUnit: number): ResourceRequest {
  const out: ResourceRequest = {};
  if (!Array.isArray(list)) return out;
  for (const t of list) {
    if (!isObject(t)) continue;
    const count = slurmNumber(t.count);
    if (count === undefined) continue;
    if (t.type === "cpu" && count >= 1) out.cores = count;
    else if (t.type === "mem" && count > 0) out.memoryBytes = Math.round(count * memoryUnit);
    else if (t.type === "node" && count >= 1) out.nodes = count;
    else if (t.type === "gres" && typeof t.name === "string" && /^gpu(:|$)/.test(t.name))
      out.gpus = (out.gpus ?? 0) + count;
  }
  return out;
}

function tresMax(step: Raw, type: string): number | undefined {
  const tres = isObject(step.tres) ? step.tres : {};
  const requested = isObject(tres.requested) ? tres.requested : {};
  const max = Array.isArray(requested.max) ? requested.max : [];
  const entry = max.find((t) => isObject(t) && t.type === type) as Raw | undefined;
  return entry ? slurmNumber(entry.count) : undefined;
}

function seconds(value: unknown): number | undefined {
  if (!isObject(value)) return slurmNumber(value);
  const s = slurmNumber(value.seconds);
  const us = slurmNumber(value.microseconds) ?? 0;
  return s === undefined ? undefined : s + us / 1e6;
}

function step(raw: Raw, jobId: number | undefined): SacctStep {
  const ids = isObject(raw.step) ? raw.step : {};
  // v0.0.38 says "batch"; newer versions say "1234.batch".
  let id = String(ids.id ?? ids.name ?? "");
  if (jobId !== undefined && id.startsWith(`${jobId}.`)) id = id.slice(String(jobId).length + 1);
  const time = isObject(raw.time) ? raw.time : {};
  const s: SacctStep = { id: id || "unknown", ...exitStatus(raw.exit_code) };
  const state = stateWord(raw.state);
  if (state) s.state = state;
  const rss = tresMax(raw, "mem");
  if (rss !== undefined) s.maxRssBytes = rss;
  const elapsed = slurmNumber(time.elapsed);
  if (elapsed !== undefined) s.elapsedSeconds = elapsed;
  return s;
}

/** Requested memory: what the job asked for (`required`), else the TRES request. */
function requestedMemory(required: Raw, cpus: number | undefined): number | undefined {
  const perNode = slurmNumber(required.memory_per_node);
  if (perNode) return perNode * MB;
  const perCpu = slurmNumber(required.memory_per_cpu);
  if (perCpu && cpus) return perCpu * cpus * MB;
  const memory = slurmNumber(required.memory);
  return memory ? memory * MB : undefined;
}

/**
 * Reads one job object of `sacct --json` (openapi v0.0.38 as in SLURM 22.05, and the newer
 * shapes with `{set, infinite, number}` values and state lists).
 *
 * @throws {Error} naming what is missing when the object is not a usable job.
 * @example
 * ```ts
 * const job = parseSacctJsonJob(JSON.parse(text).jobs[0]);
 * ```
 */
export function parseSacctJsonJob(raw: unknown): SacctJob {
  if (!isObject(raw)) throw new Error("not an object");
  const jobIdNumber = slurmNumber(raw.job_id);
  if (jobIdNumber === undefined) throw new Error("job_id is missing");
  if (typeof raw.user !== "string" || raw.user === "") throw new Error("user is missing");
  const state = stateWord(isObject(raw.state) ? raw.state.current : raw.state);
  if (!state) throw new Error("state is missing");
  const array = isObject(raw.array) ? raw.array : {};
  const arrayJobId = slurmNumber(array.job_id);
  const taskId = slurmNumber(array.task_id);
  const isArrayTask = arrayJobId !== undefined && arrayJobId > 0 && taskId !== undefined;
  const time = isObject(raw.time) ? raw.time : {};
  const required = isObject(raw.required) ? raw.required : {};
  const tres = isObject(raw.tres) ? raw.tres : {};
  const requested = tresResources(tres.requested, MB);
  const cpus = slurmNumber(required.CPUs) ?? requested.cores;
  const memory = requestedMemory(required, cpus);
  if (memory) requested.memoryBytes = memory;
  if (cpus) requested.cores = cpus;
  const limitMinutes = slurmNumber(time.limit);
  const job: SacctJob = {
    jobId: isArrayTask ? `${arrayJobId}_${taskId}` : String(jobIdNumber),
    state,
    ...exitStatus(raw.exit_code),
    requested,
    allocated: tresResources(tres.allocated, MB),
    nodes: typeof raw.nodes === "string" ? expandHostlist(raw.nodes) : [],
    steps: (Array.isArray(raw.steps) ? raw.steps : []).filter(isObject).map((s) => step(s, jobIdNumber)),
  };
  if (isArrayTask) {
    job.arrayJobId = String(arrayJobId);
    job.arrayTaskId = taskId;
  }
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const assign = <K extends keyof SacctJob>(k: K, v: SacctJob[K] | undefined) => {
    if (v !== undefined) job[k] = v;
  };
  assign("cluster", text(raw.cluster));
  assign("user", text(raw.user));
  assign("account", text(raw.account));
  assign("partition", text(raw.partition));
  assign("qos", text(raw.qos));
  assign("name", text(raw.name));
  assign("reason", isObject(raw.state) ? text(raw.state.reason) : undefined);
  assign("submit", slurmNumber(time.submission));
  assign("start", slurmNumber(time.start) || undefined);
  assign("end", slurmNumber(time.end) || undefined);
  assign("elapsedSeconds", slurmNumber(time.elapsed));
  assign("limitSeconds", limitMinutes ? limitMinutes * 60 : undefined);
  assign("cpuSeconds", seconds(time.total));
  return job;
}

/**
 * Streams the jobs of a `sacct --json` export; a job that cannot be read is reported with its
 * position instead of stopping the stream.
 *
 * @example
 * ```ts
 * for await (const item of readSacctJson(createReadStream("sacct.json"))) if ("job" in item) use(item.job);
 * ```
 */
export async function* readSacctJson(source: Readable): AsyncGenerator<SacctJsonItem> {
  for await (const { index, text } of streamJsonArray(source, "jobs")) {
    try {
      yield { index, job: parseSacctJsonJob(JSON.parse(text)) };
    } catch (error) {
      yield { index, error: (error as Error).message };
    }
  }
}
