import type { JobSpec, ResourceRequest } from "@jobsight/schemas";
import type { ParsedSubmission, SubmissionContext } from "../submission-context.js";
import { splitLines, type TextLine } from "../text-lines.js";
import { lastOption, readDirectives, type SbatchDirectives, type SbatchOption } from "./sbatch-directives.js";
import {
  countArrayTasks,
  type GpuCount,
  parseGpuCount,
  parseGresGpu,
  parseSlurmMemory,
  parseSlurmTime,
} from "./slurm-units.js";

/** How a script expresses its resources: the options in force and the counts they imply. */
export type SbatchLayout = {
  lines: TextLine[];
  directives: SbatchDirectives;
  nodes: number;
  ntasks: number;
  cpusPerTask: number;
  nodesOption?: SbatchOption;
  ntasksOption?: SbatchOption;
  ntasksPerNodeOption?: SbatchOption;
  cpusPerTaskOption?: SbatchOption;
  memoryOption?: SbatchOption;
  gpuOption?: SbatchOption;
  gpu?: GpuCount;
  timeOption?: SbatchOption;
  requested: ResourceRequest;
  warnings: string[];
};

const gpuOptions = ["gres", "gpus", "gpus-per-node", "gpus-per-task"];

function positiveInt(option: SbatchOption | undefined, warnings: string[]): number | undefined {
  if (!option) return undefined;
  // --nodes also takes a range (min-max); the minimum is what the job is sure to get.
  const m = /^(\d+)(?:-\d+)?$/.exec(option.value.trim());
  if (!m || Number(m[1]) < 1) {
    warnings.push(`--${option.name}=${option.value} is not a positive count; ignored`);
    return undefined;
  }
  return Number(m[1]);
}

/** Work out what the `#SBATCH` block asks for, keeping track of which option says what. */
export function analyseSbatch(text: string): SbatchLayout {
  const lines = splitLines(text);
  const directives = readDirectives(lines);
  const { options } = directives;
  const warnings: string[] = [];
  const nodesOption = lastOption(options, "nodes");
  const ntasksOption = lastOption(options, "ntasks");
  const ntasksPerNodeOption = lastOption(options, "ntasks-per-node");
  const cpusPerTaskOption = lastOption(options, "cpus-per-task");
  const givenNodes = positiveInt(nodesOption, warnings);
  const perNode = positiveInt(ntasksPerNodeOption, warnings);
  const givenTasks = positiveInt(ntasksOption, warnings);
  const givenCpus = positiveInt(cpusPerTaskOption, warnings);
  const nodes = givenNodes ?? 1;
  const ntasks = givenTasks ?? (perNode === undefined ? 1 : perNode * nodes);
  const cpusPerTask = givenCpus ?? 1;
  const requested: ResourceRequest = {};
  if (givenNodes !== undefined) requested.nodes = nodes;
  if (givenTasks !== undefined || perNode !== undefined || givenCpus !== undefined)
    requested.cores = ntasks * cpusPerTask;

  let gpuOption: SbatchOption | undefined;
  let gpu: GpuCount | undefined;
  for (let i = options.length - 1; i >= 0 && !gpuOption; i--) {
    const o = options[i];
    if (!gpuOptions.includes(o.name)) continue;
    const parsed = o.name === "gres" ? parseGresGpu(o.value) : parseGpuCount(o.value);
    if (parsed) {
      gpuOption = o;
      gpu = parsed;
    } else if (o.name !== "gres") {
      warnings.push(`--${o.name}=${o.value} is not a GPU count; ignored`);
    }
  }
  if (gpuOption && gpu) {
    const factor =
      { gres: nodes, gpus: 1, "gpus-per-node": nodes, "gpus-per-task": ntasks }[gpuOption.name] ?? 1;
    requested.gpus = gpu.count * factor;
    if (gpu.type) requested.gpuModel = gpu.type;
  }

  const memoryOption = lastOption(options, "mem", "mem-per-cpu", "mem-per-gpu");
  if (memoryOption) {
    const bytes = parseSlurmMemory(memoryOption.value);
    if (bytes === undefined)
      warnings.push(`--${memoryOption.name}=${memoryOption.value} is not a SLURM memory size; ignored`);
    else if (bytes === 0)
      warnings.push(`--${memoryOption.name}=0 asks for all the memory of each node; no size known`);
    else if (memoryOption.name === "mem") requested.memoryBytes = bytes * nodes;
    else if (memoryOption.name === "mem-per-cpu") requested.memoryBytes = bytes * ntasks * cpusPerTask;
    else if (requested.gpus) requested.memoryBytes = bytes * requested.gpus;
    else warnings.push("--mem-per-gpu without a GPU count; no memory size known");
  }

  const timeOption = lastOption(options, "time");
  if (timeOption) {
    const time = parseSlurmTime(timeOption.value);
    if (time === undefined) warnings.push(`--time=${timeOption.value} is not a SLURM time limit; ignored`);
    else if (time !== "unlimited") requested.walltimeSeconds = time;
  }
  return {
    lines,
    directives,
    nodes,
    ntasks,
    cpusPerTask,
    nodesOption,
    ntasksOption,
    ntasksPerNodeOption,
    cpusPerTaskOption,
    memoryOption,
    gpuOption,
    gpu,
    timeOption,
    requested,
    warnings,
  };
}

// Set-up commands say nothing about what a job is; the first other command names it.
const setupCommand =
  /^(?:module|ml|source|\.|export|set|unset|cd|echo|printf|conda|mamba|ulimit|mkdir|date|hostname|umask|trap|spack|eval|pushd|popd)(?:\s|$)/;

function executableOf(lines: TextLine[], from: number): string | undefined {
  for (let i = from; i < lines.length; i++) {
    const text = lines[i].text.trim();
    if (
      text === "" ||
      text.startsWith("#") ||
      setupCommand.test(text) ||
      /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)
    )
      continue;
    return text
      .replace(/\s+#.*$/, "")
      .replace(/\s+/g, " ")
      .slice(0, 1024);
  }
  return undefined;
}

/**
 * Read an sbatch script into a `JobSpec`, the way `sbatch` reads its `#SBATCH` block: long and
 * short options, `--mem`/`--mem-per-cpu`/`--mem-per-gpu`, cores from tasks × CPUs per task, GPUs
 * from `--gres` or `--gpus*`, every `--time` format, `--array`. Resources are for the whole job.
 *
 * @example
 * ```ts
 * const { spec } = parseSbatch("#!/bin/bash\n#SBATCH --mem=64G -c 8 --time=1-00:00:00\npython train.py\n",
 *   { cluster: "hpc1", user: "alice" });
 * spec.requested; // { memoryBytes: 68719476736, cores: 8, walltimeSeconds: 86400 }
 * ```
 */
export function parseSbatch(text: string, context: SubmissionContext): ParsedSubmission {
  const layout = analyseSbatch(text);
  const { options, firstCommandLine } = layout.directives;
  const value = (name: string) => lastOption(options, name)?.value || undefined;
  const spec: JobSpec = {
    cluster: context.cluster,
    scheduler: "slurm",
    user: context.user,
    requested: layout.requested,
  };
  const account = value("account");
  const partition = value("partition");
  const qos = value("qos");
  const jobName = value("job-name");
  const executable = executableOf(layout.lines, firstCommandLine);
  if (account) spec.account = account;
  if (partition) spec.partition = partition;
  if (qos) spec.qos = qos;
  if (jobName) spec.jobName = jobName;
  if (executable) spec.executable = executable;
  const array = value("array");
  if (array) {
    const taskCount = countArrayTasks(array);
    if (taskCount === undefined)
      layout.warnings.push(`--array=${array} is not an array specification; ignored`);
    // Not submitted yet: there is no array job id, only the shape of the array.
    else spec.array = { arrayJobId: "unsubmitted", taskCount };
  }
  return { format: "sbatch", spec, warnings: layout.warnings };
}
