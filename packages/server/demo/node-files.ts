import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// The kernel's and nvidia-smi's own formats, written into a folder the collector is pointed at
// (its cgroup root, proc root, nvidia-smi command and kmsg path are configurable for this).

const psi = (some: number, full: number) =>
  `some avg10=${some.toFixed(2)} avg60=${(some / 2).toFixed(2)} avg300=${(some / 4).toFixed(2)} total=${Math.round(some * 1e5)}\n` +
  `full avg10=${full.toFixed(2)} avg60=${(full / 2).toFixed(2)} avg300=${(full / 4).toFixed(2)} total=${Math.round(full * 1e5)}\n`;

/** What one cgroup holds in one round. */
export type CgroupState = {
  anon: number;
  file: number;
  memoryMax: number;
  oomKill: number;
  usageUsec: number;
  cores: number;
  ioSome: number;
  memSome: number;
  readBytes: number;
  procs: number[];
};

function memoryStat(anon: number, file: number): string {
  const rows: [string, number][] = [
    ["anon", anon],
    ["file", file],
    ["kernel", 1_572_864],
    ["kernel_stack", 98_304],
    ["pagetables", 438_272],
    ["sec_pagetables", 0],
    ["percpu", 5_760],
    ["sock", 0],
    ["vmalloc", 8_192],
    ["shmem", 0],
    ["file_mapped", Math.floor(file / 4)],
    ["file_dirty", 4_096],
    ["file_writeback", 0],
    ["anon_thp", 0],
    ["inactive_anon", Math.floor(anon / 2)],
    ["active_anon", anon - Math.floor(anon / 2)],
    ["inactive_file", Math.floor(file / 2)],
    ["active_file", file - Math.floor(file / 2)],
    ["unevictable", 0],
    ["slab_reclaimable", 712_416],
    ["slab_unreclaimable", 254_216],
    ["slab", 966_632],
    ["pgfault", 182_311],
    ["pgmajfault", 41],
  ];
  return rows.map(([k, v]) => `${k} ${v}\n`).join("");
}

/** Writes a cgroup v2 directory with the interface files the collector reads. */
export function writeCgroup(dir: string, s: CgroupState): void {
  mkdirSync(dir, { recursive: true });
  const current = s.anon + s.file + 3_145_728;
  const events = s.oomKill > 0 ? s.oomKill + 3 : 0;
  const files: Record<string, string> = {
    "cgroup.controllers": "cpuset cpu io memory pids\n",
    "cgroup.procs": s.procs.map((p) => `${p}\n`).join(""),
    "cgroup.events": `populated ${s.procs.length > 0 ? 1 : 0}\nfrozen 0\n`,
    "memory.current": `${Math.min(current, s.memoryMax)}\n`,
    "memory.peak": `${Math.min(current, s.memoryMax)}\n`,
    "memory.max": `${s.memoryMax}\n`,
    "memory.stat": memoryStat(s.anon, s.file),
    "memory.swap.current": "0\n",
    "memory.events": `low 0\nhigh 0\nmax ${events}\noom ${s.oomKill}\noom_kill ${s.oomKill}\noom_group_kill 0\n`,
    "memory.pressure": psi(s.memSome, s.memSome / 2),
    "cpu.stat": `usage_usec ${s.usageUsec}\nuser_usec ${Math.round(s.usageUsec * 0.9)}\nsystem_usec ${Math.round(s.usageUsec * 0.1)}\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n`,
    "cpu.max": `${s.cores * 100_000} 100000\n`,
    "cpu.pressure": psi(1.5, 0),
    "io.stat": `259:0 rbytes=${s.readBytes} wbytes=314773504 rios=${Math.round(s.readBytes / 131072)} wios=353 dbytes=0 dios=0\n`,
    "io.pressure": psi(s.ioSome, s.ioSome / 3),
    "pids.current": `${s.procs.length + 2}\n`,
    "pids.max": "max\n",
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

/** One process of the generated /proc. */
export type ProcState = {
  pid: number;
  comm: string;
  state: string;
  rssBytes: number;
  cgroup: string;
  jobId: string;
  utime: number;
};

/** Writes `/proc/<pid>/{stat,status,comm,cgroup,environ,cmdline}` in the kernel's formats. */
export function writeProc(root: string, p: ProcState): void {
  const dir = join(root, String(p.pid));
  mkdirSync(dir, { recursive: true });
  const pages = Math.floor(p.rssBytes / 4096);
  const stat = [
    p.pid,
    `(${p.comm})`,
    p.state,
    4000,
    p.pid,
    p.pid,
    0,
    -1,
    4194304,
    1523,
    0,
    2,
    0,
    p.utime,
    Math.round(p.utime / 10),
    0,
    0,
    20,
    0,
    1,
    0,
    5_000_000,
    pages * 4096 * 3,
    pages,
    "18446744073709551615",
    94_000_000_000_000,
    94_000_000_100_000,
    140_730_000_000_000,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    17,
    3,
    0,
    0,
    0,
    0,
    0,
    94_000_000_200_000,
    94_000_000_300_000,
    94_000_001_000_000,
    140_730_000_100_000,
    140_730_000_200_000,
    140_730_000_200_000,
    140_730_000_300_000,
    0,
  ];
  writeFileSync(join(dir, "stat"), `${stat.join(" ")}\n`);
  const kb = pages * 4;
  const name = p.state === "D" ? "disk sleep" : p.state === "R" ? "running" : "sleeping";
  writeFileSync(
    join(dir, "status"),
    `Name:\t${p.comm}\nUmask:\t0022\nState:\t${p.state} (${name})\nTgid:\t${p.pid}\nNgid:\t0\nPid:\t${p.pid}\nPPid:\t4000\nTracerPid:\t0\n` +
      `Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nFDSize:\t64\nVmPeak:\t ${kb * 3} kB\nVmSize:\t ${kb * 3} kB\n` +
      `VmHWM:\t ${kb} kB\nVmRSS:\t ${kb} kB\nRssAnon:\t ${kb - 4} kB\nRssFile:\t       4 kB\nRssShmem:\t       0 kB\nVmSwap:\t       0 kB\nThreads:\t1\n`,
  );
  writeFileSync(join(dir, "comm"), `${p.comm}\n`);
  writeFileSync(join(dir, "cgroup"), `0::${p.cgroup}\n`);
  writeFileSync(join(dir, "environ"), `PATH=/usr/bin:/bin\0SLURM_JOB_ID=${p.jobId}\0HOME=/home/demo\0`);
  writeFileSync(join(dir, "cmdline"), `${p.comm}\0train.py\0`);
}

/** One GPU line of `nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu --format=csv,noheader,nounits`. */
export type GpuState = {
  index: number;
  uuid: string;
  pci: string;
  util: number;
  usedMiB: number;
  power: number;
  temp: number;
};

export const gpuLine = (g: GpuState) =>
  `${g.index}, ${g.uuid}, 00000000:${g.pci}:00.0, ${g.util}, ${g.usedMiB}, 81920, ${g.power.toFixed(2)}, ${g.temp}\n`;

/**
 * A recorded nvidia-smi: an executable that prints the folder's current readings in the real CSV
 * format, looping like `-lms <ms>` does, and the compute apps for `--query-compute-apps`.
 */
export function writeNvidiaSmi(dir: string): string {
  const path = join(dir, "nvidia-smi");
  writeFileSync(
    path,
    `#!/bin/sh
# Recorded nvidia-smi for the Jobsight demo: prints ${dir}/gpus.csv like the real one.
here="${dir}"
case "$*" in
  *--query-compute-apps*) cat "$here/compute-apps.csv" ;;
  *-lms*)
    ms=1000
    for a in "$@"; do case "$prev" in -lms) ms="$a" ;; esac; prev="$a"; done
    while :; do cat "$here/gpus.csv"; sleep "$(awk "BEGIN{print $ms/1000}")"; done ;;
  *) cat "$here/gpus.csv" ;;
esac
`,
  );
  chmodSync(path, 0o755);
  return path;
}
