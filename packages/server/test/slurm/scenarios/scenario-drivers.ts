import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { poll } from "../../../../../test/slurm/poll.js";
import type { CgroupMirror } from "./cgroup-mirror.js";
import { FAKE_GPUS, type FakeNvidiaSmi, IDLE_READING } from "./fake-gpus.js";
import type { FakeKernelLog } from "./fake-kernel-log.js";
import type { ScenarioClass } from "./scenario-classes.js";

/** What the node's kernel and GPU driver, played by the test, act on. */
export type NodeStandIns = {
  /** `$SCENARIO_DIR` of the jobs: their pid files, and the fault files that end the GPU jobs. */
  dir: string;
  smi: FakeNvidiaSmi;
  kmsg: FakeKernelLog;
  mirror?: CgroupMirror;
  /** Resolves when the job has ended (SLURM says so). */
  ended(jobId: string): Promise<void>;
  /** Resolves after the node collector's next `n` rounds. */
  rounds(n: number): Promise<void>;
};

/** A submitted scenario job. */
export type ScenarioJob = { id: string; cls: ScenarioClass };

/** How long a GPU job trains before its fault: long enough for every use rule to judge it. */
const TRAIN_SECONDS = 36;

/**
 * The pid the job wrote to `$SCENARIO_DIR/pid-<id>`. Generous: a job may wait for cores behind its
 * phase's others, and a loaded machine starts Python slowly.
 */
export async function jobPid(dir: string, jobId: string): Promise<number> {
  return poll(
    async () => {
      const text = await readFile(join(dir, `pid-${jobId}`), "utf8").catch(() => "");
      return text ? Number(text) : undefined;
    },
    { what: `the pid of job ${jobId}`, timeoutMs: 180_000, intervalMs: 100 },
  );
}

/**
 * Plays, for one job, what the node would do that this cluster cannot: the GPU it was allocated
 * reads busy or starved while the job runs (and idle again after), its kernel faults, its GPU falls
 * off the bus (once `gpusDone` resolves: nvidia-smi then fails for every GPU of the node), the memory
 * cgroup kills it near its limit. Resolves when the job has ended and its stand-ins are cleaned up.
 *
 * @example
 * await driveJob(standIns, job, otherGpuJobsEnded);
 */
export async function driveJob(s: NodeStandIns, job: ScenarioJob, gpusDone: Promise<void>): Promise<void> {
  const { cls, id } = job;
  const gpu = cls.gpu ? FAKE_GPUS[cls.gpu.index] : undefined;
  const usesGpu = gpu && cls.gpu!.reading.utilization > 0;
  const pid = usesGpu || cls.fault ? await jobPid(s.dir, id) : undefined;
  const started = Date.now();
  if (gpu && pid !== undefined && usesGpu) {
    await s.smi.set(gpu.index, cls.gpu!.reading);
    await s.smi.addApp(pid, gpu, cls.gpu!.reading.memoryUsedMiB - 4);
  }
  const trained = () => sleep(Math.max(0, started + TRAIN_SECONDS * 1000 - Date.now()));
  if (cls.fault === "xid-application" && gpu && pid !== undefined) {
    await trained();
    await s.kmsg.xidApplication(gpu, pid, "python3");
    await writeFile(join(s.dir, `fault-${id}`), "Xid 31\n");
  } else if (cls.fault === "xid-gpu-lost" && gpu) {
    await Promise.all([trained(), gpusDone]);
    await s.kmsg.xidFallenOffBus(gpu);
    await s.smi.lose(gpu);
    // The job's next CUDA call fails a moment after the driver lost the GPU.
    await sleep(1_000);
    await writeFile(join(s.dir, `fault-${id}`), "Xid 79\n");
  } else if (cls.fault === "cgroup-oom" && pid !== undefined && s.mirror) {
    await killAtCgroupLimit(s, id, pid, cls.request.memMb * 2 ** 20);
  }
  await s.ended(id);
  if (gpu && pid !== undefined && usesGpu && cls.fault !== "xid-gpu-lost") {
    await s.smi.set(gpu.index, IDLE_READING);
    await s.smi.removeApp(pid);
  }
}

/**
 * The memory controller's OOM killer: once the job's process holds 88% of the limit in anonymous
 * memory (it stops short of SLURM's own kill at 100%), `memory.events` counts an oom_kill, the
 * kernel logs its lines and the process gets SIGKILL; the cgroup goes when the job has ended.
 */
async function killAtCgroupLimit(s: NodeStandIns, jobId: string, pid: number, limit: number): Promise<void> {
  const cgroup = s.mirror!.follow(jobId, pid, limit);
  try {
    const at = await poll(
      async () => {
        const f = cgroup.last();
        return f && f.anonKb * 1024 >= 0.88 * limit ? f : undefined;
      },
      { what: `job ${jobId} near its memory limit`, timeoutMs: 90_000, intervalMs: 100 },
    );
    cgroup.countOomKill();
    await s.kmsg.cgroupOomKill(
      jobId,
      {
        pid,
        name: "python3",
        totalVmKb: at.totalVmKb,
        anonRssKb: at.anonKb,
        fileRssKb: at.fileKb,
        shmemRssKb: at.shmemKb,
      },
      limit,
    );
    process.kill(pid, "SIGKILL");
    // SLURM removes the cgroup as the job ends; the collector's next round reads it once more.
    await Promise.all([s.ended(jobId), s.rounds(1)]);
  } finally {
    cgroup.remove();
  }
}
