import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { type CgroupJobIdentity, jobFromCgroupPath } from "./cgroup-job-path.js";

/** A job found in the cgroup tree, with the directory to read it from. */
export type DiscoveredJob = CgroupJobIdentity & {
  /** Absolute directory of the job-level cgroup. */
  dir: string;
  /** Its steps or containers (absolute directories), when listed. */
  steps: { step: string; dir: string }[];
};

/** Options of {@link CgroupV2Discovery}. */
export type CgroupV2DiscoveryOptions = {
  /** The cgroup v2 mount point. @default "/sys/fs/cgroup" */
  root?: string;
  /** List each job's steps (SLURM) or containers (Kubernetes) too. @default true */
  includeSteps?: boolean;
};

function dirs(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).filter((d) => d.isDirectory());
  } catch {
    // Missing or vanished while listing: nothing running there.
    return [];
  }
}

const stepdScope = /^(?:.+_)?slurmstepd\.scope$/;
const qosSlice = /^kubepods-(burstable|besteffort)\.slice$/;
const podSlice = /^kubepods-(?:(?:burstable|besteffort)-)?pod[0-9a-fA-F_]+\.slice$/;
const containerScope = /^(?:cri-containerd|crio|docker|cri-dockerd)-[0-9a-fA-F]+\.scope$/;

/**
 * Finds the running jobs in a cgroup v2 tree: SLURM jobs under `system.slice/[<node>_]slurmstepd.scope`
 * and Kubernetes pods under `kubepods.slice` (systemd driver) or `kubepods/` (cgroupfs driver).
 * Only the few directories where jobs live are listed, never the whole tree.
 *
 * @example
 * ```ts
 * const jobs = new CgroupV2Discovery({ root: "/sys/fs/cgroup" }).discover();
 * for (const job of jobs) console.log(job.scheduler, job.jobId, job.dir);
 * ```
 */
export class CgroupV2Discovery {
  readonly root: string;
  private readonly includeSteps: boolean;

  constructor(options: CgroupV2DiscoveryOptions = {}) {
    this.root = options.root ?? "/sys/fs/cgroup";
    this.includeSteps = options.includeSteps ?? true;
  }

  /** Every job running now, SLURM first, each once. */
  discover(): DiscoveredJob[] {
    const out: DiscoveredJob[] = [];
    this.slurm(out);
    this.kubernetesSystemd(out);
    this.kubernetesCgroupfs(out);
    return out;
  }

  private add(out: DiscoveredJob[], rel: string, stepDirs: () => { name: string; rel: string }[]): void {
    const id = jobFromCgroupPath(rel);
    if (!id) return;
    const job: DiscoveredJob = { ...id, dir: join(this.root, rel), steps: [] };
    if (this.includeSteps) {
      for (const s of stepDirs()) {
        const sid = jobFromCgroupPath(s.rel);
        if (sid?.step) job.steps.push({ step: sid.step, dir: join(this.root, s.rel) });
      }
    }
    out.push(job);
  }

  private slurm(out: DiscoveredJob[]): void {
    for (const scope of dirs(join(this.root, "system.slice"))) {
      if (!stepdScope.test(scope.name)) continue;
      const scopeRel = `/system.slice/${scope.name}`;
      for (const job of dirs(join(this.root, scopeRel))) {
        if (!job.name.startsWith("job_")) continue;
        const jobRel = `${scopeRel}/${job.name}`;
        this.add(out, jobRel, () =>
          dirs(join(this.root, jobRel))
            .filter((d) => d.name.startsWith("step_"))
            .map((d) => ({ name: d.name, rel: `${jobRel}/${d.name}` })),
        );
      }
    }
  }

  private kubernetesSystemd(out: DiscoveredJob[]): void {
    const top = "/kubepods.slice";
    const pods: string[] = [];
    for (const d of dirs(join(this.root, top))) {
      if (podSlice.test(d.name)) pods.push(`${top}/${d.name}`);
      else if (qosSlice.test(d.name)) {
        for (const p of dirs(join(this.root, top, d.name))) {
          if (podSlice.test(p.name)) pods.push(`${top}/${d.name}/${p.name}`);
        }
      }
    }
    for (const pod of pods) {
      this.add(out, pod, () =>
        dirs(join(this.root, pod))
          .filter((d) => containerScope.test(d.name))
          .map((d) => ({ name: d.name, rel: `${pod}/${d.name}` })),
      );
    }
  }

  private kubernetesCgroupfs(out: DiscoveredJob[]): void {
    const top = "/kubepods";
    const pods: string[] = [];
    for (const d of dirs(join(this.root, top))) {
      if (d.name.startsWith("pod")) pods.push(`${top}/${d.name}`);
      else if (d.name === "burstable" || d.name === "besteffort") {
        for (const p of dirs(join(this.root, top, d.name))) {
          if (p.name.startsWith("pod")) pods.push(`${top}/${d.name}/${p.name}`);
        }
      }
    }
    for (const pod of pods) {
      this.add(out, pod, () =>
        dirs(join(this.root, pod))
          .filter((d) => /^[0-9a-fA-F]{64}$/.test(d.name))
          .map((d) => ({ name: d.name, rel: `${pod}/${d.name}` })),
      );
    }
  }
}
