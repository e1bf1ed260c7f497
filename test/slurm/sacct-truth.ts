import type { SlurmClient } from "./slurm-client.js";

/** What `sacct -P` (the trustworthy output of 22.05) says of one job, in the schemas' units. */
export type SacctTruth = {
  id: string;
  /** First word of State (`CANCELLED by 0` → `CANCELLED`). */
  state: string;
  /** Set when ExitCode is `N:0`. */
  exitCode?: number;
  /** Set when ExitCode is `0:S` with S > 0. */
  signal?: number;
  /** TimelimitRaw (minutes) × 60; undefined when UNLIMITED. */
  walltimeSeconds?: number;
  elapsedSeconds: number;
  /** ReqMem in bytes (`200M` → 209715200). */
  requestedMemoryBytes?: number;
  /** The largest MaxRSS of the job's steps, in bytes; undefined when no step was sampled. */
  maxRssBytes?: number;
  steps: Record<string, { state: string; exitCode?: number; signal?: number; maxRssBytes?: number }>;
};

const UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** `322620K` → bytes; `unit` for a bare number. Undefined for "" and anything unreadable. */
export function sizeToBytes(text: string, unit: "K" | "M"): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([KMGT]?)[nc]?$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[match[2] || unit]);
}

function exit(text: string): { exitCode?: number; signal?: number } {
  const [code, signal] = text.split(":").map(Number);
  return signal > 0 ? { signal } : { exitCode: code };
}

/**
 * Reads the jobs' accounting with `sacct -P` and turns it into the values a Jobsight record of
 * each job must carry (state, exit code or signal, limit, elapsed time, request, peak memory).
 * Call it after the jobs finished (see `waitForJob`).
 *
 * @example
 * const truth = await sacctTruth(slurmClient(), ["12", "13"]);
 * truth.get("12")?.signal; // 9 for a job killed over its memory
 */
export async function sacctTruth(client: SlurmClient, ids: string[]): Promise<Map<string, SacctTruth>> {
  const fields = ["JobID", "State", "ExitCode", "ElapsedRaw", "TimelimitRaw", "ReqMem", "MaxRSS"];
  const rows = await client.sacctParsable(fields, ["-j", ids.join(",")]);
  const truths = new Map<string, SacctTruth>();
  for (const row of rows) {
    const [id, step] = row.JobID.split(".");
    const state = row.State.split(" ")[0];
    if (step === undefined) {
      const limit = Number(row.TimelimitRaw);
      truths.set(id, {
        id,
        state,
        ...exit(row.ExitCode),
        walltimeSeconds: Number.isFinite(limit) ? limit * 60 : undefined,
        elapsedSeconds: Number(row.ElapsedRaw),
        requestedMemoryBytes: sizeToBytes(row.ReqMem, "M"),
        steps: {},
      });
      continue;
    }
    const truth = truths.get(id);
    if (!truth) continue;
    const maxRssBytes = sizeToBytes(row.MaxRSS, "K");
    truth.steps[step] = { state, ...exit(row.ExitCode), maxRssBytes };
    if (maxRssBytes !== undefined) truth.maxRssBytes = Math.max(truth.maxRssBytes ?? 0, maxRssBytes);
  }
  return truths;
}
