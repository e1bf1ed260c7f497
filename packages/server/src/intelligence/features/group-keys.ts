import type { HistoryJob } from "../history-job.js";

/**
 * The levels of similarity a job is grouped by, most specific first: the same submission (user,
 * executable and identical requests), the same application of the same user, the same user, and the
 * same executable across users.
 */
export const GROUP_LEVELS = ["same", "app", "user", "exe"] as const;
export type GroupLevel = (typeof GROUP_LEVELS)[number];

/** The key of a job at each level; `exe` is undefined when the job names no executable. */
export type GroupKeys = Record<Exclude<GroupLevel, "exe">, string> & { exe?: string };

/** The key of `job` at each level, or undefined where the job lacks what the level needs. */
export function groupKeys(job: HistoryJob): GroupKeys {
  const exe = job.executable ?? "";
  const r = job.requested;
  const app = `u=${job.user}|x=${exe}`;
  return {
    same: `${app}|c=${r.cores ?? ""}|t=${r.walltimeSeconds ?? ""}|m=${r.memoryBytes ?? ""}|q=${job.queue ?? ""}`,
    app,
    user: `u=${job.user}`,
    exe: job.executable !== undefined ? `x=${job.executable}` : undefined,
  };
}

/** Human-readable group name for evidence, e.g. `user=12,executable=7`. */
export function describeGroup(job: HistoryJob, level: GroupLevel): string {
  const exe = job.executable ?? "unknown";
  const r = job.requested;
  switch (level) {
    case "same":
      return `user=${job.user},executable=${exe},same request (cores=${r.cores ?? "-"},walltime=${r.walltimeSeconds ?? "-"}s)`;
    case "app":
      return `user=${job.user},executable=${exe}`;
    case "user":
      return `user=${job.user}`;
    case "exe":
      return `executable=${exe}`;
  }
}

/** The level at an index of {@link GROUP_LEVELS}, described without a job (backtest evidence). */
export function describeLevel(index: number): string {
  const level = GROUP_LEVELS[index];
  return level === "same"
    ? "same user, executable and request"
    : level === "app"
      ? "same user and executable"
      : `same ${level}`;
}
