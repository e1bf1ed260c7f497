import type { UsageSample } from "@jobsight/schemas/light";

/** What a cgroup reader produces for one job: the cgroup parts of a {@link UsageSample}. */
export type CgroupUsage = Pick<UsageSample, "memory" | "cpu" | "io" | "pids" | "pressure">;

/** A reader of one cgroup hierarchy layout (v2 or v1). */
export type CgroupReader = {
  /** Read a job's cgroup directory; `undefined` when it no longer exists (the job ended). */
  read(dir: string): CgroupUsage | undefined;
  /** Drop what was remembered about a directory (its largest memory reading). */
  forget(dir: string): void;
  /** Release what the reader holds open. */
  close(): void;
};
