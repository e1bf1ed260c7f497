import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { jobFromCgroupPath } from "./cgroup-job-path.js";
import { CgroupV2Discovery, type DiscoveredJob } from "./cgroup-v2-discovery.js";

/** Options of {@link CgroupV1Discovery}. */
export type CgroupV1DiscoveryOptions = {
  /** Where the v1 controllers are mounted; jobs are found under `<root>/memory`. @default "/sys/fs/cgroup" */
  root?: string;
  /** List each job's steps or containers too. @default true */
  includeSteps?: boolean;
};

function dirs(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).filter((d) => d.isDirectory());
  } catch {
    return [];
  }
}

/**
 * Finds running jobs in a cgroup v1 memory hierarchy: SLURM's `slurm[_<node>]/uid_<uid>/job_<id>/step_<n>`
 * and Kubernetes pods (`kubepods/…` or `kubepods.slice/…`).
 *
 * @example
 * ```ts
 * const jobs = new CgroupV1Discovery({ root: "/sys/fs/cgroup" }).discover();
 * ```
 */
export class CgroupV1Discovery {
  private readonly memoryRoot: string;
  private readonly includeSteps: boolean;
  private readonly pods: CgroupV2Discovery;

  constructor(options: CgroupV1DiscoveryOptions = {}) {
    this.memoryRoot = join(options.root ?? "/sys/fs/cgroup", "memory");
    this.includeSteps = options.includeSteps ?? true;
    // Kubernetes lays pods out the same way in the v1 memory hierarchy as in the v2 tree.
    this.pods = new CgroupV2Discovery({ root: this.memoryRoot, includeSteps: this.includeSteps });
  }

  /** Every job running now. */
  discover(): DiscoveredJob[] {
    const out: DiscoveredJob[] = [];
    for (const top of dirs(this.memoryRoot)) {
      if (top.name !== "slurm" && !top.name.startsWith("slurm_")) continue;
      for (const uid of dirs(join(this.memoryRoot, top.name))) {
        if (!uid.name.startsWith("uid_")) continue;
        for (const job of dirs(join(this.memoryRoot, top.name, uid.name))) {
          const rel = `/${top.name}/${uid.name}/${job.name}`;
          const id = jobFromCgroupPath(rel);
          if (!id) continue;
          const found: DiscoveredJob = { ...id, dir: join(this.memoryRoot, rel), steps: [] };
          if (this.includeSteps) {
            for (const step of dirs(found.dir)) {
              if (step.name.startsWith("step_"))
                found.steps.push({ step: step.name.slice(5), dir: join(found.dir, step.name) });
            }
          }
          out.push(found);
        }
      }
    }
    for (const pod of this.pods.discover()) if (pod.scheduler === "kubernetes") out.push(pod);
    return out;
  }
}
