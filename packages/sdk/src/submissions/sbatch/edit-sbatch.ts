import type { ResourceName, SubmissionEdit } from "@jobsight/schemas";
import type { ResourceTargets, SkippedResource } from "../edit-plan.js";
import { dominantEol, joinLines, type TextLine } from "../text-lines.js";
import { analyseSbatch } from "./parse-sbatch.js";
import type { SbatchOption } from "./sbatch-directives.js";
import {
  formatSlurmMemory,
  formatSlurmTime,
  parseGpuCount,
  parseSlurmMemory,
  parseSlurmTime,
} from "./slurm-units.js";

/** The result of editing one submission format. */
export type FormatEdit = { text: string; changes: SubmissionEdit["changes"]; skipped: SkippedResource[] };

type Replacement = { resource: ResourceName; option: SbatchOption; text: string };

// Keep the user's quoting: a quoted value stays quoted with the same quote character.
function requote(raw: string, value: string): string {
  const q = raw[0];
  return (q === '"' || q === "'") && raw.endsWith(q) && raw.length > 1 ? `${q}${value}${q}` : value;
}

function rewriteGres(value: string, perNode: number): string | undefined {
  const items = value.split(",");
  const gpuItems = items.filter((i) => /^(gres\/)?gpu(:|$|\()/.test(i.trim()));
  if (gpuItems.length !== 1) return undefined;
  return items
    .map((item) => {
      if (item !== gpuItems[0]) return item;
      const socket = /\(.*\)$/.exec(item)?.[0] ?? "";
      const parts = item.slice(0, item.length - socket.length).split(":");
      if (parts.length > 1 && /^\d+$/.test(parts.at(-1)!)) parts[parts.length - 1] = String(perNode);
      else parts.push(String(perNode));
      return parts.join(":") + socket;
    })
    .join(",");
}

/**
 * Edit the resource options of an sbatch script in place, each in the option the user chose to
 * express it (`--mem` or `--mem-per-cpu`, `-c` or `--ntasks`, `--gres` or `--gpus*`), adding
 * `#SBATCH` lines after the last one for what was not set. Every other byte stays as it was.
 */
export function editSbatch(text: string, targets: ResourceTargets): FormatEdit {
  const layout = analyseSbatch(text);
  const replacements: Replacement[] = [];
  const additions: { resource: ResourceName; text: string }[] = [];
  const skipped: SkippedResource[] = [];
  const { nodes } = layout;
  let { ntasks, cpusPerTask } = layout;

  const replace = (resource: ResourceName, option: SbatchOption, value: string) => {
    const line = layout.lines[option.line].text;
    replacements.push({
      resource,
      option,
      text: requote(line.slice(option.valueStart, option.valueEnd), value),
    });
  };

  if (targets.cores !== undefined) {
    const cores = targets.cores;
    const { cpusPerTaskOption, ntasksOption, ntasksPerNodeOption } = layout;
    if (cpusPerTaskOption || (!ntasksOption && !ntasksPerNodeOption)) {
      const next = Math.max(1, Math.ceil(cores / ntasks));
      if (!cpusPerTaskOption) additions.push({ resource: "cores", text: `--cpus-per-task=${next}` });
      else if (next !== cpusPerTask) replace("cores", cpusPerTaskOption, String(next));
      cpusPerTask = next;
    } else if (ntasksOption) {
      const next = Math.max(1, Math.ceil(cores / cpusPerTask));
      if (next !== ntasks) replace("cores", ntasksOption, String(next));
      ntasks = next;
    } else if (ntasksPerNodeOption) {
      const next = Math.max(1, Math.ceil(cores / (cpusPerTask * nodes)));
      if (next * nodes !== ntasks) replace("cores", ntasksPerNodeOption, String(next));
      ntasks = next * nodes;
    }
  }

  // A per-task or per-CPU amount follows the task or CPU count. A resource without a target (no
  // advice, or the policy leaves it alone) is never edited: its line stays as written, and what
  // the job then gets in all is said, so a lower total is never silent.
  const gpuTarget = targets.gpus;
  const perTaskGpus = layout.gpuOption?.name === "gpus-per-task" && ntasks !== layout.ntasks;
  let gpus =
    perTaskGpus && layout.requested.gpus !== undefined
      ? (layout.requested.gpus / layout.ntasks) * ntasks
      : layout.requested.gpus;
  if (gpuTarget === undefined && perTaskGpus)
    skipped.push(keptAsWritten("gpus", layout.gpuOption!, `${ntasks} tasks`, layout.requested.gpus, gpus));
  if (gpuTarget !== undefined) {
    const option = layout.gpuOption;
    if (!option) {
      if (gpuTarget > 0) {
        additions.push({ resource: "gpus", text: `--gres=gpu:${Math.ceil(gpuTarget / nodes)}` });
        gpus = Math.ceil(gpuTarget / nodes) * nodes;
      }
    } else {
      const divisor =
        { gres: nodes, gpus: 1, "gpus-per-node": nodes, "gpus-per-task": ntasks }[option.name] ?? 1;
      const count = Math.ceil(gpuTarget / divisor);
      const parsed = option.name === "gres" ? layout.gpu : parseGpuCount(option.value);
      const value =
        option.name === "gres"
          ? rewriteGres(option.value, count)
          : `${parsed?.type ? `${parsed.type}:` : ""}${count}`;
      if (value === undefined)
        skipped.push({ resource: "gpus", reason: "--gres names several GPU types; not edited" });
      else {
        if (count !== parsed?.count) replace("gpus", option, value);
        gpus = count * divisor;
      }
    }
  }

  const memoryOption = layout.memoryOption;
  const cpusChanged = ntasks * cpusPerTask !== layout.ntasks * layout.cpusPerTask;
  const memoryTarget = targets.memory;
  const perCpu = memoryOption?.name === "mem-per-cpu" && cpusChanged;
  const perGpu = memoryOption?.name === "mem-per-gpu" && gpus !== layout.requested.gpus;
  if (memoryTarget === undefined && (perCpu || perGpu)) {
    const each = parseSlurmMemory(memoryOption!.value);
    const units = perCpu ? ntasks * cpusPerTask : (gpus ?? 0);
    const total = each === undefined ? undefined : each * units;
    const what = perCpu ? `${units} CPUs` : `${units} GPUs`;
    skipped.push(keptAsWritten("memory", memoryOption!, what, layout.requested.memoryBytes, total));
  }
  if (memoryTarget !== undefined) {
    const option = memoryOption;
    const perUnit =
      !option || option.name === "mem"
        ? memoryTarget / nodes
        : option.name === "mem-per-cpu"
          ? memoryTarget / (ntasks * cpusPerTask)
          : gpus
            ? memoryTarget / gpus
            : undefined;
    if (perUnit === undefined)
      skipped.push({ resource: "memory", reason: "--mem-per-gpu with no GPU; not edited" });
    else if (!option) additions.push({ resource: "memory", text: `--mem=${formatSlurmMemory(perUnit)}` });
    else if (parseSlurmMemory(option.value) !== parseSlurmMemory(formatSlurmMemory(perUnit))) {
      replace("memory", option, formatSlurmMemory(perUnit));
    }
  }

  if (targets.walltime !== undefined) {
    const value = formatSlurmTime(targets.walltime);
    const option = layout.timeOption;
    if (!option) additions.push({ resource: "walltime", text: `--time=${value}` });
    else if (parseSlurmTime(option.value) !== parseSlurmTime(value)) replace("walltime", option, value);
  }

  if (targets.gpuMemory !== undefined) {
    skipped.push({
      resource: "gpuMemory",
      reason: "sbatch has no option for GPU memory; choose a GPU type instead",
    });
  }

  return apply(text, layout.lines, layout.directives.lastDirectiveLine, replacements, additions, skipped);
}

/** Why a per-unit line the edit leaves alone now gives the job another total, in the user's terms. */
function keptAsWritten(
  resource: ResourceName,
  option: SbatchOption,
  units: string,
  before: number | undefined,
  after: number | undefined,
): SkippedResource {
  const amount = (n: number | undefined) =>
    n === undefined ? "an unknown amount" : resource === "memory" ? formatSlurmMemory(n) : String(n);
  return {
    resource,
    reason: `--${option.name}=${option.value} kept as written: with ${units} the job gets ${amount(after)} in all, not ${amount(before)}`,
  };
}

function apply(
  original: string,
  source: TextLine[],
  lastDirectiveLine: number,
  replacements: Replacement[],
  additions: { resource: ResourceName; text: string }[],
  skipped: SkippedResource[],
): FormatEdit {
  const lines = source.map((l) => ({ ...l }));
  const changes: SubmissionEdit["changes"] = [];
  const byLine = new Map<number, Replacement[]>();
  for (const r of replacements) byLine.set(r.option.line, [...(byLine.get(r.option.line) ?? []), r]);
  for (const [index, list] of byLine) {
    let text = lines[index].text;
    for (const r of [...list].sort((a, b) => b.option.valueStart - a.option.valueStart)) {
      text = text.slice(0, r.option.valueStart) + r.text + text.slice(r.option.valueEnd);
    }
    lines[index].text = text;
  }

  let anchor = lastDirectiveLine;
  if (anchor < 0) anchor = lines[0]?.text.startsWith("#!") ? 0 : -1;
  const eol = (anchor >= 0 && lines[anchor].eol) || dominantEol(original);
  const added: TextLine[] = additions.map((a) => ({ text: `#SBATCH ${a.text}`, eol }));
  if (added.length > 0 && anchor >= 0 && lines[anchor].eol === "") {
    // The anchor was the last line and had no end-of-line: it gets one, the new last line does not.
    lines[anchor].eol = eol;
    added[added.length - 1].eol = "";
  }
  lines.splice(anchor + 1, 0, ...added);

  for (const r of replacements) {
    if (changes.some((c) => c.resource === r.resource)) continue;
    const index = r.option.line;
    const lineNumber = index <= anchor ? index + 1 : index + 1 + added.length;
    changes.push({
      resource: r.resource,
      before: source[index].text,
      after: lines[lineNumber - 1].text,
      line: lineNumber,
    });
  }
  additions.forEach((a, k) => {
    changes.push({ resource: a.resource, after: added[k].text, line: anchor + 2 + k });
  });
  changes.sort((a, b) => a.line - b.line);
  return { text: joinLines(lines), changes, skipped };
}
