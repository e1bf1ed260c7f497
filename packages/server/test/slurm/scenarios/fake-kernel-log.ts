import { appendFile, readFile, writeFile } from "node:fs/promises";
import { type FakeGpu, kernelPciBusId } from "./fake-gpus.js";

/** A process the kernel names in an OOM kill, with its memory from `/proc/<pid>/status` in kB. */
export type OomVictim = {
  pid: number;
  name: string;
  totalVmKb: number;
  anonRssKb: number;
  fileRssKb: number;
  shmemRssKb: number;
};

/**
 * A file of `/dev/kmsg` records (`<level>,<seq>,<µs since boot>,<flags>;<text>`, continuation lines
 * starting with a space), appended to as the kernel would: the collector is pointed at it with
 * `--kmsg-path` and reads it as it reads the device. Record times count from the host's real boot
 * time (`btime` of /proc/stat), as the collector converts them back with it.
 *
 * @example
 * const kmsg = await FakeKernelLog.create("/tmp/x/kmsg");
 * await kmsg.xidApplication(gpu, 4242, "python3");
 */
export class FakeKernelLog {
  readonly path: string;
  private readonly bootMs: number;
  private sequence = 1000;

  private constructor(path: string, bootMs: number) {
    this.path = path;
    this.bootMs = bootMs;
  }

  static async create(path: string): Promise<FakeKernelLog> {
    const stat = await readFile("/proc/stat", "utf8");
    const btime = Number(/^btime (\d+)$/m.exec(stat)?.[1]);
    await writeFile(path, "");
    return new FakeKernelLog(path, btime * 1000);
  }

  private async write(records: { level: number; text: string; dict?: string[] }[]): Promise<void> {
    const us = Math.max(0, Math.round((Date.now() - this.bootMs) * 1000));
    const out = records.map(
      (r, i) =>
        `${r.level},${this.sequence++},${us + i * 40},-;${r.text}\n${(r.dict ?? []).map((d) => ` ${d}\n`).join("")}`,
    );
    await appendFile(this.path, out.join(""));
  }

  /** Xid 31, a GPU memory page fault raised by the job's own kernel (an illegal memory access). */
  async xidApplication(gpu: FakeGpu, pid: number, name: string): Promise<void> {
    const pci = kernelPciBusId(gpu);
    await this.write([
      {
        level: 4,
        text: `NVRM: Xid (PCI:${pci}): 31, pid=${pid}, name=${name}, Ch 00000010, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f12_3c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ`,
        dict: ["SUBSYSTEM=pci", `DEVICE=+pci:${pci}.0`],
      },
    ]);
  }

  /** Xid 79: the GPU fell off the bus (the driver names no process). */
  async xidFallenOffBus(gpu: FakeGpu): Promise<void> {
    const pci = kernelPciBusId(gpu);
    await this.write([
      { level: 6, text: `NVRM: GPU at PCI:${pci}: ${gpu.uuid}` },
      { level: 6, text: "NVRM: GPU Board Serial Number: 1324120012345" },
      {
        level: 4,
        text: `NVRM: Xid (PCI:${pci}): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.`,
        dict: ["SUBSYSTEM=pci", `DEVICE=+pci:${pci}.0`],
      },
    ]);
  }

  /** The memory cgroup's OOM killer killing `victim` in the job's cgroup (the kernel's five lines). */
  async cgroupOomKill(jobId: string, victim: OomVictim, limitBytes: number): Promise<void> {
    const cgroup = `/system.slice/slurmstepd.scope/job_${jobId}`;
    const limitKb = Math.round(limitBytes / 1024);
    const rss = victim.anonRssKb + victim.fileRssKb + victim.shmemRssKb;
    await this.write([
      {
        level: 4,
        text: `${victim.name} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0`,
      },
      {
        level: 6,
        text: `CPU: 1 PID: ${victim.pid} Comm: ${victim.name} Not tainted 6.1.0-18-amd64 #1  Debian 6.1.76-1`,
      },
      { level: 6, text: `memory: usage ${Math.min(rss, limitKb)}kB, limit ${limitKb}kB, failcnt 212` },
      {
        level: 6,
        text: `oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=${cgroup},task_memcg=${cgroup}/step_batch/user/task_0,task=${victim.name},pid=${victim.pid},uid=0`,
      },
      {
        level: 3,
        text: `Memory cgroup out of memory: Killed process ${victim.pid} (${victim.name}) total-vm:${victim.totalVmKb}kB, anon-rss:${victim.anonRssKb}kB, file-rss:${victim.fileRssKb}kB, shmem-rss:${victim.shmemRssKb}kB, UID:0 pgtables:${Math.max(4, Math.round(victim.totalVmKb / 512))}kB oom_score_adj:0`,
      },
    ]);
  }
}
