import type { JobSpec, PolicyAdjustment } from "@jobsight/schemas";
import type { AppliedResource } from "../../policy/apply-policy.js";
import {
  describeMemoryMb,
  describeMinutes,
  type GresList,
  gpuCount,
  parseGres,
  parseSlurmMemoryMb,
  parseSlurmTimeMinutes,
  withGpuCount,
} from "./slurm-values.js";

const MiB = 2 ** 20;
/**
 * SLURM's NO_VAL for a 32-bit field. sbatch hands a cli_filter an unset `--time` as this many
 * minutes, rendered (`2982616-04:14:00`); it is no limit to compare with or to lower.
 */
const NO_VAL_MINUTES = 4_294_967_294;

/** Which option carries the GPUs, and how many units it counts per (nodes for per-node forms). */
type GpuOption = { key: "gpus" | "gres" | "gpus-per-node"; list: GresList; per: number; implicit?: "gpu" };

/** A SLURM submission read from its options: the job spec and how to write values back. */
export type SlurmJobOptions = {
  spec: JobSpec;
  nodes: number;
  ntasks: number;
  cpusPerTask?: number;
  memory?: { key: "mem" | "mem-per-cpu"; mb: number };
  gpus?: GpuOption;
  timeMinutes?: number;
};

/** One option to set, and the line that tells the user. */
export type OptionChange = {
  key: string;
  value: string;
  /** The resource the option carries. */
  resource: AppliedResource["resource"];
  /** For people: `--mem 16G->8G`. */
  description: string;
  rules: PolicyAdjustment["rule"][];
};

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

/**
 * Read SLURM's option strings (`mem`, `mem-per-cpu`, `cpus-per-task`, `ntasks`, `nodes`, `time`,
 * `gres`, `gpus`, `gpus-per-node`, `partition`, `account`, `qos`, `job-name`, `script`) into a
 * job spec for the whole job: memory is per node (`--mem`) or per CPU (`--mem-per-cpu`), cores are
 * tasks × CPUs per task (one task and one CPU when not given, SLURM's defaults), GPUs per job or
 * per node. Options that cannot be read are treated as absent and are never written back.
 *
 * @example
 * ```ts
 * readSlurmOptions({ mem: "16G", time: "04:00:00" }, { cluster: "hpc1", user: "alice" }).spec.requested;
 * // { memoryBytes: 17179869184, cores: 1, walltimeSeconds: 14400 }
 * ```
 */
export function readSlurmOptions(
  options: Record<string, string>,
  context: { cluster: string; user: string },
): SlurmJobOptions {
  const nodes = positiveInt(options.nodes?.split("-")[0]) ?? 1;
  const ntasks = positiveInt(options.ntasks) ?? 1;
  const cpusPerTask = positiveInt(options["cpus-per-task"]);
  const cores = ntasks * (cpusPerTask ?? 1);
  const spec: JobSpec = {
    cluster: context.cluster,
    scheduler: "slurm",
    user: bounded(context.user, 128),
    requested: { cores },
  };
  const read: SlurmJobOptions = { spec, nodes, ntasks, cpusPerTask };
  const text = (key: string, max: number) => (options[key] ? bounded(options[key], max) : undefined);
  spec.partition = text("partition", 128);
  spec.account = text("account", 128);
  spec.qos = text("qos", 128);
  spec.jobName = text("job-name", 512);
  spec.executable = text("script", 1024);
  for (const key of ["partition", "account", "qos", "jobName", "executable"] as const)
    if (spec[key] === undefined) delete spec[key];

  const mem = options.mem !== undefined ? parseSlurmMemoryMb(options.mem) : undefined;
  const perCpu =
    options["mem-per-cpu"] !== undefined ? parseSlurmMemoryMb(options["mem-per-cpu"]) : undefined;
  // --mem=0 asks for all of a node's memory: nothing to compare with, left alone.
  if (mem !== undefined && mem > 0) {
    read.memory = { key: "mem", mb: mem };
    spec.requested.memoryBytes = mem * nodes * MiB;
  } else if (perCpu !== undefined && perCpu > 0) {
    read.memory = { key: "mem-per-cpu", mb: perCpu };
    spec.requested.memoryBytes = perCpu * cores * MiB;
  }

  const gpuForms: [GpuOption["key"], number, "gpu" | undefined][] = [
    ["gpus", 1, "gpu"],
    ["gpus-per-node", nodes, "gpu"],
    ["gres", nodes, undefined],
  ];
  for (const [key, per, implicit] of gpuForms) {
    const list = options[key] ? parseGres(options[key], implicit) : undefined;
    if (list && gpuCount(list) > 0) {
      read.gpus = { key, list, per, ...(implicit ? { implicit } : {}) };
      spec.requested.gpus = gpuCount(list) * per;
      break;
    }
  }

  const minutes = options.time !== undefined ? parseSlurmTimeMinutes(options.time) : undefined;
  if (minutes !== undefined && minutes > 0 && minutes < NO_VAL_MINUTES) {
    read.timeMinutes = minutes;
    spec.requested.walltimeSeconds = minutes * 60;
  }
  return read;
}

/**
 * The options to set for the applied values: `cpus-per-task` for cores (divided over the tasks),
 * memory in the form the job used (`--mem` per node, `--mem-per-cpu` over the new CPU count), GPUs
 * in the option the job used, `--time` in minutes. Only what changes is listed.
 */
export function optionChanges(read: SlurmJobOptions, resources: readonly AppliedResource[]): OptionChange[] {
  const changes: OptionChange[] = [];
  const applied = (name: AppliedResource["resource"]) =>
    resources.find((r) => r.resource === name && r.changed && r.value !== undefined);
  const rulesOf = (r: AppliedResource) => r.adjustments.map((a) => a.rule);

  let cpusPerTask = read.cpusPerTask ?? 1;
  const cores = applied("cores");
  if (cores) {
    const next = Math.max(1, Math.ceil(cores.value! / read.ntasks));
    if (next !== cpusPerTask) {
      changes.push({
        key: "cpus-per-task",
        value: String(next),
        resource: "cores",
        description: `--cpus-per-task ${cpusPerTask}->${next}`,
        rules: rulesOf(cores),
      });
      cpusPerTask = next;
    }
  }

  const memory = applied("memory");
  if (memory) {
    const totalMb = Math.ceil(memory.value! / MiB);
    const key = read.memory?.key ?? "mem";
    const per = key === "mem-per-cpu" ? read.ntasks * cpusPerTask : read.nodes;
    const next = Math.max(1, Math.ceil(totalMb / per));
    if (next !== read.memory?.mb) {
      const before = read.memory ? describeMemoryMb(read.memory.mb) : "default";
      changes.push({
        key,
        value: String(next),
        resource: "memory",
        description: `--${key} ${before}->${describeMemoryMb(next)}`,
        rules: rulesOf(memory),
      });
    }
  }

  const gpus = applied("gpus");
  if (gpus && read.gpus) {
    const g = read.gpus;
    const next = Math.max(1, Math.ceil(gpus.value! / g.per));
    if (next !== gpuCount(g.list)) {
      const value = withGpuCount(g.list, next, g.implicit);
      const before = withGpuCount(g.list, gpuCount(g.list), g.implicit);
      changes.push({
        key: g.key,
        value,
        resource: "gpus",
        description: `--${g.key} ${before}->${value}`,
        rules: rulesOf(gpus),
      });
    }
  }

  const walltime = applied("walltime");
  if (walltime) {
    const next = Math.max(1, Math.ceil(walltime.value! / 60));
    if (next !== read.timeMinutes) {
      const before = read.timeMinutes !== undefined ? describeMinutes(read.timeMinutes) : "default";
      changes.push({
        key: "time",
        value: String(next),
        resource: "walltime",
        description: `--time ${before}->${describeMinutes(next)}`,
        rules: rulesOf(walltime),
      });
    }
  }
  return changes;
}
