import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** One GPU of the generated node: what `nvidia-smi --query-gpu` names it by. */
export type FakeGpu = { index: number; uuid: string; pciBusId: string; memoryTotalMiB: number };

/** What a GPU reads at a moment: `utilization.gpu` (%), `memory.used` (MiB), power (W), temperature (C). */
export type GpuReading = { utilization: number; memoryUsedMiB: number; powerW: number; temperatureC: number };

/** Four 40 GiB GPUs at the PCI addresses of a common 4-GPU server. */
export const FAKE_GPUS: readonly FakeGpu[] = [
  {
    index: 0,
    uuid: "GPU-5f3c2a1b-8e7d-4c6b-a9f0-1e2d3c4b5a69",
    pciBusId: "00000000:3B:00.0",
    memoryTotalMiB: 40960,
  },
  {
    index: 1,
    uuid: "GPU-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    pciBusId: "00000000:5E:00.0",
    memoryTotalMiB: 40960,
  },
  {
    index: 2,
    uuid: "GPU-1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",
    pciBusId: "00000000:86:00.0",
    memoryTotalMiB: 40960,
  },
  {
    index: 3,
    uuid: "GPU-6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c",
    pciBusId: "00000000:AF:00.0",
    memoryTotalMiB: 40960,
  },
];

/** An idle GPU: no context, 4 MiB used by the driver, idle power and temperature. */
export const IDLE_READING: GpuReading = { utilization: 0, memoryUsedMiB: 4, powerW: 52.31, temperatureC: 33 };

/** The GPU's address as the kernel prints it in an Xid line (`0000:3b:00`). */
export function kernelPciBusId(gpu: FakeGpu): string {
  return gpu.pciBusId.slice(4, 14).toLowerCase();
}

/** The GPU's address as nvidia-smi prints it in its "GPU is lost" message (`0000:3B:00.0`). */
export function smiPciBusId(gpu: FakeGpu): string {
  return gpu.pciBusId.slice(4);
}

/**
 * A stand-in `nvidia-smi` for a node without GPUs: prints `--query-gpu` lines in the exact format
 * the real one prints with `--format=csv,noheader,nounits -lms <ms>` (nine fields, minor number
 * last), from per-GPU reading files the test writes as jobs use the GPUs; answers
 * `--query-compute-apps` from a file; and, once a GPU is marked lost, prints what the real one
 * prints for a GPU that fell off the bus and exits 15 (NVML's "GPU is lost"), as every later run does.
 *
 * @example
 * const smi = await FakeNvidiaSmi.create(dir);
 * await smi.set(1, { utilization: 12, memoryUsedMiB: 30000, powerW: 90, temperatureC: 45 });
 */
export class FakeNvidiaSmi {
  /** The executable to give the collector as `--nvidia-smi`. */
  readonly command: string;
  private readonly dir: string;
  private readonly apps = new Map<number, string>();
  private appsWritten = Promise.resolve();

  private constructor(dir: string) {
    this.dir = dir;
    this.command = join(dir, "nvidia-smi");
  }

  static async create(dir: string): Promise<FakeNvidiaSmi> {
    await mkdir(dir, { recursive: true });
    const smi = new FakeNvidiaSmi(dir);
    for (const gpu of FAKE_GPUS) await smi.set(gpu.index, IDLE_READING);
    await writeFile(join(dir, "compute-apps.csv"), "");
    const lines = FAKE_GPUS.map(
      (g) =>
        `  read u m p t < "$d/gpu${g.index}"; echo "${g.index}, ${g.uuid}, ${g.pciBusId}, $u, $m, ${g.memoryTotalMiB}, $p, $t, ${g.index}"`,
    );
    const script = [
      "#!/bin/bash",
      `d='${dir}'`,
      "lost() {",
      '  if [ -f "$d/lost" ]; then',
      '    echo "Unable to determine the device handle for GPU $(cat "$d/lost"): GPU is lost.  Reboot the system to recover this GPU"',
      "    exit 15",
      "  fi",
      "}",
      'case "$*" in *--query-compute-apps*) lost; cat "$d/compute-apps.csv"; exit 0 ;; esac',
      'ms=1000; prev=""; for a in "$@"; do [ "$prev" = "-lms" ] && ms="$a"; prev="$a"; done',
      "while :; do",
      "  lost",
      ...lines,
      '  sleep "$(awk "BEGIN { print $ms / 1000 }")"',
      "done",
      "",
    ].join("\n");
    await writeFile(smi.command, script);
    await chmod(smi.command, 0o755);
    return smi;
  }

  /** What GPU `index` reads from now on. */
  async set(index: number, r: GpuReading): Promise<void> {
    const line = `${r.utilization} ${r.memoryUsedMiB} ${r.powerW.toFixed(2)} ${r.temperatureC}\n`;
    // Renamed into place: the script never reads a half-written file.
    await writeFile(join(this.dir, `gpu${index}.tmp`), line);
    await rename(join(this.dir, `gpu${index}.tmp`), join(this.dir, `gpu${index}`));
  }

  /** A process starts using a GPU: `--query-compute-apps=pid,gpu_uuid,used_memory` lists it. */
  async addApp(pid: number, gpu: FakeGpu, usedMiB: number): Promise<void> {
    this.apps.set(pid, `${pid}, ${gpu.uuid}, ${usedMiB}\n`);
    await this.writeApps();
  }

  /** The process no longer uses its GPU. */
  async removeApp(pid: number): Promise<void> {
    this.apps.delete(pid);
    await this.writeApps();
  }

  private writeApps(): Promise<void> {
    // One write at a time, each of the whole list, renamed into place.
    const file = join(this.dir, "compute-apps.csv");
    this.appsWritten = this.appsWritten.then(async () => {
      await writeFile(`${file}.tmp`, [...this.apps.values()].join(""));
      await rename(`${file}.tmp`, file);
    });
    return this.appsWritten;
  }

  /** The GPU falls off the bus: from now on nvidia-smi cannot reach it and fails. */
  async lose(gpu: FakeGpu): Promise<void> {
    await writeFile(join(this.dir, "lost"), smiPciBusId(gpu));
  }
}
