import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { ResourceRequest } from "@jobsight/schemas";
import type { SacctJob, SacctStep } from "./sacct-job.js";
import {
  expandHostlist,
  parseSlurmDuration,
  parseSlurmMemory,
  parseSlurmTime,
  parseTres,
} from "./slurm-units.js";

/** A job of a `--parsable2` export (with its 1-based line), or a line that could not be read. */
export type SacctParsableItem = { line: number; job: SacctJob } | { line: number; error: string };

/** Options of {@link readSacctParsable}. */
export type SacctParsableOptions = {
  /** IANA time zone of the cluster (sacct prints local times without an offset). @default "UTC" */
  timeZone?: string;
};

type Row = { line: number; get: (field: string) => string };

function exitField(text: string): { exitCode?: number; signal?: number } {
  const m = /^(\d+):(\d+)$/.exec(text.trim());
  if (!m) return {};
  const out: { exitCode?: number; signal?: number } = {};
  const code = Number(m[1]);
  const signal = Number(m[2]);
  if (code <= 255) out.exitCode = code;
  if (signal >= 1 && signal <= 64) out.signal = signal;
  return out;
}

function positiveInt(text: string): number | undefined {
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

function resources(tresText: string, cpusText: string, nodesText: string, memText: string): ResourceRequest {
  const out: ResourceRequest = {};
  const tres = parseTres(tresText);
  const cores = tres.get("cpu") ?? positiveInt(cpusText);
  const nodes = tres.get("node") ?? positiveInt(nodesText);
  if (cores) out.cores = cores;
  if (nodes) out.nodes = nodes;
  if (tres.has("gres/gpu")) out.gpus = tres.get("gres/gpu");
  let memory = tres.get("mem");
  if (memory === undefined && memText) {
    const mem = parseSlurmMemory(memText);
    if (mem) memory = mem.bytes * (mem.per === "cpu" ? (cores ?? 1) : mem.per === "node" ? (nodes ?? 1) : 1);
  }
  if (memory) out.memoryBytes = memory;
  return out;
}

function jobFromRow(row: Row, timeZone: string): SacctJob {
  const { get } = row;
  const jobId = get("jobid");
  const state = get("state");
  if (!state) throw new Error("State is empty");
  const user = get("user");
  if (!user) throw new Error("User is empty (is it a step line without its job line?)");
  const job: SacctJob = {
    jobId,
    state,
    ...exitField(get("exitcode")),
    requested: resources(get("reqtres"), get("reqcpus"), get("reqnodes"), get("reqmem")),
    allocated: resources(get("alloctres"), get("alloccpus"), get("nnodes"), ""),
    nodes: expandHostlist(get("nodelist")),
    steps: [],
    user,
  };
  const array = /^(\d+)_(\d+)$/.exec(jobId);
  if (array) {
    job.arrayJobId = array[1];
    job.arrayTaskId = Number(array[2]);
  }
  const set = <K extends keyof SacctJob>(k: K, v: SacctJob[K] | undefined | "") => {
    if (v !== undefined && v !== "") job[k] = v as SacctJob[K];
  };
  set("cluster", get("cluster"));
  set("account", get("account"));
  set("partition", get("partition"));
  set("qos", get("qos"));
  set("name", get("jobname"));
  set("reason", get("reason"));
  set("submit", parseSlurmTime(get("submit"), timeZone));
  set("start", parseSlurmTime(get("start"), timeZone));
  set("end", parseSlurmTime(get("end"), timeZone));
  set("elapsedSeconds", positiveIntOrZero(get("elapsedraw")) ?? parseSlurmDuration(get("elapsed")));
  const limitRaw = positiveInt(get("timelimitraw"));
  set("limitSeconds", limitRaw ? limitRaw * 60 : parseSlurmDuration(get("timelimit")));
  set("cpuSeconds", parseSlurmDuration(get("totalcpu")));
  return job;
}

function positiveIntOrZero(text: string): number | undefined {
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

function stepFromRow(row: Row, id: string): SacctStep {
  const s: SacctStep = { id, ...exitField(row.get("exitcode")) };
  const state = row.get("state");
  if (state) s.state = state;
  const rss = parseSlurmMemory(row.get("maxrss"), "K");
  if (rss) s.maxRssBytes = rss.bytes;
  const elapsed = positiveIntOrZero(row.get("elapsedraw")) ?? parseSlurmDuration(row.get("elapsed"));
  if (elapsed !== undefined) s.elapsedSeconds = elapsed;
  return s;
}

/**
 * Streams the jobs of `sacct --parsable2` output with a header line (`sacct -P -o JobID,State,…`):
 * the usual fields are JobID, JobName, User, Account, Partition, QOS, State, ExitCode, Submit,
 * Start, End, Elapsed(Raw), Timelimit(Raw), ReqMem, ReqCPUS, AllocCPUS, ReqTRES, AllocTRES,
 * NNodes, NodeList, MaxRSS, TotalCPU, Cluster; any subset with JobID, State and User works. Step
 * lines (`1234.batch`) are gathered into their job. Unreadable lines come with their line number.
 *
 * @example
 * ```ts
 * for await (const item of readSacctParsable(createReadStream("sacct.txt"), { timeZone: "Europe/Paris" })) …
 * ```
 */
export async function* readSacctParsable(
  source: Readable,
  options: SacctParsableOptions = {},
): AsyncGenerator<SacctParsableItem> {
  const timeZone = options.timeZone ?? "UTC";
  const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY });
  let header: string[] | undefined;
  let current: { line: number; job: SacctJob; base: string } | undefined;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (text.trim() === "") continue;
    const cells = text.split("|");
    if (!header) {
      header = cells.map((c) => c.trim().toLowerCase());
      if (!header.includes("jobid") || !header.includes("state")) {
        yield { line: lineNumber, error: "The first line must be a header naming at least JobID and State" };
        return;
      }
      continue;
    }
    if (cells.length !== header.length) {
      yield { line: lineNumber, error: `expected ${header.length} fields, found ${cells.length}` };
      continue;
    }
    const columns = header;
    const row: Row = {
      line: lineNumber,
      get: (field) => {
        const i = columns.indexOf(field);
        return i < 0 ? "" : cells[i].trim();
      },
    };
    const jobId = row.get("jobid");
    const dot = jobId.indexOf(".");
    const base = dot < 0 ? jobId : jobId.slice(0, dot);
    if (dot >= 0) {
      if (current && current.base === base) current.job.steps.push(stepFromRow(row, jobId.slice(dot + 1)));
      else yield { line: lineNumber, error: `step ${jobId} without its job line` };
      continue;
    }
    if (current) yield { line: current.line, job: current.job };
    current = undefined;
    try {
      current = { line: lineNumber, job: jobFromRow(row, timeZone), base };
    } catch (error) {
      yield { line: lineNumber, error: (error as Error).message };
    }
  }
  if (current) yield { line: current.line, job: current.job };
}
