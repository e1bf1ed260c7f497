/** Which job (and step) a cgroup path belongs to. */
export type CgroupJobIdentity = {
  scheduler: "slurm" | "kubernetes";
  /** SLURM job id (as the directory names it) or the Kubernetes pod UID with dashes. */
  jobId: string;
  /** SLURM step (`batch`, `extern`, `interactive`, `0`, …) or the container id. */
  step?: string;
  /** The job-level cgroup, relative to the hierarchy root, starting with `/`. */
  jobPath: string;
  /** The step- or container-level cgroup, when the path goes that deep. */
  stepPath?: string;
  /** Node name of a multi-slurmd `<nodename>_slurmstepd.scope` (or v1 `slurm_<nodename>`). */
  nodePrefix?: string;
  /** Owner's uid from a cgroup v1 `uid_<n>` directory. */
  uid?: number;
  /** Kubernetes QoS class from the slice name. */
  qos?: "guaranteed" | "burstable" | "besteffort";
};

// cgroup v2, SLURM: /system.slice/[<node>_]slurmstepd.scope/job_<id>[/step_<step>[/…]]
// The job id is taken as written: numeric today, but any name without "/" is accepted.
const slurmV2 = /(^|\/)system\.slice\/(?:([^/]+)_)?slurmstepd\.scope\/job_([^/]+)(?:\/step_([^/]+))?/;
// cgroup v1, SLURM: /slurm[_<node>]/uid_<uid>/job_<id>[/step_<step>[/task_<n>]]
const slurmV1 = /(^|\/)slurm(?:_([^/]+))?\/uid_(\d+)\/job_([^/]+)(?:\/step_([^/]+))?/;
// Kubernetes, systemd cgroup driver (uid dashes written as underscores):
//   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope
//   /kubepods.slice/kubepods-pod<uid>.slice/crio-<id>.scope   (guaranteed)
const k8sSystemd =
  /(^|\/)(?:[^/]*-)?kubepods\.slice\/(?:(?:[^/]*-)?kubepods-(burstable|besteffort)\.slice\/)?(?:[^/]*-)?kubepods-(?:(?:burstable|besteffort)-)?pod([0-9a-fA-F_]+)\.slice(?:\/(cri-containerd|crio|docker|cri-dockerd)-([0-9a-fA-F]+)\.scope)?/;
// Kubernetes, cgroupfs driver: /kubepods[/burstable|/besteffort]/pod<uid>[/<container id>]
const k8sCgroupfs =
  /(^|\/)kubepods(?:\/(burstable|besteffort))?\/pod([0-9a-fA-F-]+)(?:\/([0-9a-fA-F]{64}))?(?=\/|$)/;

function normalise(path: string): string {
  return path.startsWith("/") ? path : `/${path}`;
}

/**
 * Tell which job a cgroup path (as in `/proc/<pid>/cgroup`, a kernel OOM line's `oom_memcg=`, or
 * a directory under the cgroup root) belongs to. Returns `undefined` for anything else.
 *
 * @example
 * ```ts
 * jobFromCgroupPath("/system.slice/slurmstepd.scope/job_42/step_0/user/task_0");
 * // { scheduler: "slurm", jobId: "42", step: "0", jobPath: "/system.slice/slurmstepd.scope/job_42", … }
 * ```
 */
export function jobFromCgroupPath(path: string): CgroupJobIdentity | undefined {
  const p = normalise(path);
  let m = slurmV2.exec(p);
  if (m) {
    const start = m.index + m[1].length;
    const jobEnd = p.indexOf(`job_${m[3]}`, start) + `job_${m[3]}`.length;
    const id: CgroupJobIdentity = { scheduler: "slurm", jobId: m[3], jobPath: p.slice(0, jobEnd) };
    if (m[2]) id.nodePrefix = m[2];
    if (m[4]) {
      id.step = m[4];
      id.stepPath = `${id.jobPath}/step_${m[4]}`;
    }
    return id;
  }
  m = slurmV1.exec(p);
  if (m) {
    const start = m.index + m[1].length;
    const jobEnd = p.indexOf(`/job_${m[4]}`, start) + `/job_${m[4]}`.length;
    const id: CgroupJobIdentity = {
      scheduler: "slurm",
      jobId: m[4],
      jobPath: p.slice(0, jobEnd),
      uid: Number(m[3]),
    };
    if (m[2]) id.nodePrefix = m[2];
    if (m[5]) {
      id.step = m[5];
      id.stepPath = `${id.jobPath}/step_${m[5]}`;
    }
    return id;
  }
  m = k8sSystemd.exec(p);
  if (m) {
    const podSlice = p.indexOf(`pod${m[3]}.slice`, m.index) + `pod${m[3]}.slice`.length;
    const id: CgroupJobIdentity = {
      scheduler: "kubernetes",
      jobId: m[3].replace(/_/g, "-").toLowerCase(),
      jobPath: p.slice(0, podSlice),
      qos: (m[2] as "burstable" | "besteffort" | undefined) ?? "guaranteed",
    };
    if (m[5]) {
      id.step = m[5].toLowerCase();
      id.stepPath = `${id.jobPath}/${m[4]}-${m[5]}.scope`;
    }
    return id;
  }
  m = k8sCgroupfs.exec(p);
  if (m) {
    const podEnd = p.indexOf(`pod${m[3]}`, m.index) + `pod${m[3]}`.length;
    const id: CgroupJobIdentity = {
      scheduler: "kubernetes",
      jobId: m[3].toLowerCase(),
      jobPath: p.slice(0, podEnd),
      qos: (m[2] as "burstable" | "besteffort" | undefined) ?? "guaranteed",
    };
    if (m[4]) {
      id.step = m[4].toLowerCase();
      id.stepPath = `${id.jobPath}/${m[4]}`;
    }
    return id;
  }
  return undefined;
}

/**
 * Parse `/proc/<pid>/cgroup` into the job it belongs to: the v2 line `0::<path>`, or on cgroup v1
 * the `memory` (else any) controller line.
 *
 * @example
 * ```ts
 * jobFromProcCgroup("0::/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0\n")?.jobId; // "7"
 * ```
 */
export function jobFromProcCgroup(text: string): CgroupJobIdentity | undefined {
  let fallback: CgroupJobIdentity | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const first = line.indexOf(":");
    const second = line.indexOf(":", first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const id = jobFromCgroupPath(line.slice(second + 1));
    if (!id) continue;
    if (controllers === "" || controllers.split(",").includes("memory")) return id;
    fallback ??= id;
  }
  return fallback;
}
