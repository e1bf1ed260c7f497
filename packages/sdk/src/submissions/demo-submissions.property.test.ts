import {
  cpuStepOf,
  formatQuantity,
  type Prediction,
  parseQuantity,
  type ResourceName,
} from "@jobsight/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMap, type Scalar } from "yaml";
import {
  type DemoSubmission,
  demoSubmissions,
  lineChanges,
  predictionArb,
} from "../test-support/demo-submissions.js";
import { requestField } from "./edit-plan.js";
import { planSubmissionEdit } from "./edit-submission.js";
import { readResource, resourceKeys } from "./kubernetes/container-resources.js";
import { readManifest, selectWorkload } from "./kubernetes/manifest-workloads.js";
import { parseManifest } from "./kubernetes/parse-manifest.js";
import { analyseSbatch, parseSbatch } from "./sbatch/parse-sbatch.js";
import { parseSlurmMemory, parseSlurmTime } from "./sbatch/slurm-units.js";
import { splitLines } from "./text-lines.js";

const MiB = 2 ** 20;
const ctx = { cluster: "demo", user: "20" };
const submissions = demoSubmissions();
const runs = { numRuns: 150 };

// What the edit is asked to write: the recommendations, but no zero amount (never written).
function recommended(p: Prediction): Partial<Record<ResourceName, number>> {
  const ok = p.resources.flatMap((r) =>
    r.status === "ok" && (r.value > 0 || r.resource === "gpus") ? [r] : [],
  );
  return Object.fromEntries(ok.map((r) => [r.resource, r.value]));
}

function askedOf(requested: Record<string, unknown>): Partial<Record<ResourceName, number>> {
  const asked: Partial<Record<ResourceName, number>> = {};
  for (const [resource, field] of Object.entries(requestField))
    if (typeof requested[field] === "number") asked[resource as ResourceName] = requested[field];
  return asked;
}

const sbatchResource: Record<string, ResourceName> = {
  mem: "memory",
  "mem-per-cpu": "memory",
  "mem-per-gpu": "memory",
  ntasks: "cores",
  "ntasks-per-node": "cores",
  "cpus-per-task": "cores",
  gres: "gpus",
  gpus: "gpus",
  "gpus-per-node": "gpus",
  "gpus-per-task": "gpus",
  time: "walltime",
};

// A line with every option value replaced by `·`: two lines that differ only in values compare equal.
function masked(text: string, line: number): string {
  const layout = analyseSbatch(text);
  let out = layout.lines[line].text + layout.lines[line].eol;
  const options = layout.directives.options.filter((o) => o.line === line);
  for (const o of options.sort((a, b) => b.valueStart - a.valueStart))
    out = `${out.slice(0, o.valueStart)}·${out.slice(o.valueEnd)}`;
  return out;
}

function checkSbatch(text: string, prediction: Prediction): void {
  const out = planSubmissionEdit(text, prediction, undefined, { format: "sbatch" }).edit.text;
  const was = analyseSbatch(text);
  const now = analyseSbatch(out);
  const ok = recommended(prediction);
  // Each amount in the script's own form: the count the script sets is the one that moves, and a
  // per-CPU/per-GPU/per-task amount is divided by the new count; one with no recommendation stays as
  // written, its total following the count (the edit says so in its skipped list).
  let { ntasks, cpusPerTask } = was;
  const { nodes } = was;
  if (ok.cores !== undefined) {
    if (was.cpusPerTaskOption || (!was.ntasksOption && !was.ntasksPerNodeOption))
      cpusPerTask = Math.max(1, Math.ceil(ok.cores / ntasks));
    else if (was.ntasksOption) ntasks = Math.max(1, Math.ceil(ok.cores / cpusPerTask));
    else ntasks = Math.max(1, Math.ceil(ok.cores / (cpusPerTask * nodes))) * nodes;
  }
  const cpusMoved = ntasks * cpusPerTask !== was.ntasks * was.cpusPerTask;
  const gpuForm = was.gpuOption?.name;
  const gpusCoupled = gpuForm === "gpus-per-task" && ntasks !== was.ntasks;
  const gpuTarget = ok.gpus;
  const gpuPer =
    { gres: nodes, gpus: 1, "gpus-per-node": nodes, "gpus-per-task": ntasks }[gpuForm ?? "gres"] ?? 1;
  const gpuCount =
    gpuTarget !== undefined && (gpuForm || gpuTarget > 0) ? Math.ceil(gpuTarget / gpuPer) : undefined;
  const gpus =
    gpuCount !== undefined
      ? gpuCount * gpuPer
      : gpusCoupled && was.requested.gpus !== undefined
        ? (was.requested.gpus / was.ntasks) * ntasks
        : was.requested.gpus;
  const memoryForm = was.memoryOption?.name ?? "mem";
  const memoryCoupled =
    memoryForm === "mem-per-cpu" ? cpusMoved : memoryForm === "mem-per-gpu" && gpus !== was.requested.gpus;
  const memoryTarget = ok.memory;
  const memoryPer =
    { mem: nodes, "mem-per-cpu": ntasks * cpusPerTask, "mem-per-gpu": gpus ?? 0 }[memoryForm] ?? 0;
  const memoryEach =
    memoryTarget && memoryPer > 0 ? Math.ceil(memoryTarget / MiB / memoryPer) * MiB : undefined;
  const memoryWritten = was.memoryOption && parseSlurmMemory(was.memoryOption.value);
  const memory =
    memoryEach !== undefined
      ? memoryEach * memoryPer
      : memoryCoupled && memoryWritten !== undefined
        ? memoryWritten * memoryPer
        : was.requested.memoryBytes;
  const walltime =
    ok.walltime === undefined ? was.requested.walltimeSeconds : Math.ceil(ok.walltime / 60) * 60;
  const cores = ok.cores === undefined ? was.requested.cores : ntasks * cpusPerTask;
  // (2) Read back by the SDK's own parser, each edited amount is the recommendation in that form.
  expect(now.requested).toEqual({
    ...was.requested,
    cores,
    gpus,
    memoryBytes: memory,
    walltimeSeconds: walltime,
  });
  expect(parseSbatch(out, ctx).spec).toEqual({ ...parseSbatch(text, ctx).spec, requested: now.requested });

  // Which options must change: those whose own value (per node, CPU, GPU or task) moves.
  const moved = new Set<ResourceName>();
  const timeWas = was.timeOption && parseSlurmTime(was.timeOption.value);
  if (ok.walltime !== undefined && timeWas !== walltime) moved.add("walltime");
  if (
    ok.cores !== undefined &&
    (cpusMoved || !(was.cpusPerTaskOption || was.ntasksOption || was.ntasksPerNodeOption))
  )
    moved.add("cores");
  if (gpuCount !== undefined && gpuCount !== was.gpu?.count) moved.add("gpus");
  const memoryWas = was.memoryOption && parseSlurmMemory(was.memoryOption.value);
  if (memoryEach !== undefined && memoryEach !== memoryWas) moved.add("memory");
  // (1) A resource without evidence is never edited, not even a per-CPU/per-GPU/per-task amount
  // whose count moved; the edit then says what the job gets in all.
  const plan = planSubmissionEdit(text, prediction, undefined, { format: "sbatch" });
  for (const r of prediction.resources) {
    if (r.status !== "ok") expect(moved.has(r.resource)).toBe(false);
    const coupled = (r.resource === "memory" && memoryCoupled) || (r.resource === "gpus" && gpusCoupled);
    if (r.status !== "ok" && coupled)
      expect(plan.skipped.some((k) => k.resource === r.resource && / kept as written: /.test(k.reason))).toBe(
        true,
      );
  }
  const active = [was.memoryOption, was.cpusPerTaskOption, was.ntasksOption, was.ntasksPerNodeOption];
  const edited = [...active, was.gpuOption, was.timeOption].filter(
    (o) => o && moved.has(sbatchResource[o.name]),
  );
  const raw = (t: string, o: { line: number; valueStart: number; valueEnd: number }) =>
    splitLines(t)[o.line].text.slice(o.valueStart, o.valueEnd);
  // The options the user wrote stay, in order and in their own form; only the edited ones change.
  was.directives.options.forEach((o, k) => {
    const n = now.directives.options[k];
    expect(n.name).toBe(o.name);
    if (!edited.includes(o)) expect(raw(out, n)).toBe(raw(text, o));
  });
  const added = now.directives.options.slice(was.directives.options.length);
  for (const o of added) expect(moved.has(sbatchResource[o.name])).toBe(true);

  // (3) Only the lines of edited options change, and only in their values; added lines are directives.
  const lines = lineChanges(text, out);
  const editedLines = new Set(edited.map((o) => o?.line));
  for (const i of lines.removed) {
    expect(editedLines.has(i)).toBe(true);
    expect(masked(out, i)).toBe(masked(text, i));
  }
  const newLines = lines.added.filter((j) => !lines.removed.includes(j));
  expect(newLines).toHaveLength(added.length);
  for (const j of newLines) expect(splitLines(out)[j].text).toMatch(/^#SBATCH --[a-z-]+=\S+$/);
}

const podResources = [
  ["memory", resourceKeys.memory],
  ["cores", resourceKeys.cores],
  ["gpus", resourceKeys.gpus],
] as const;
const resourceLine = /(memory|cpu|nvidia\.com\/gpu|resources|requests|limits|activeDeadlineSeconds)\s*:/;

function mainOf(text: string, workload?: string) {
  const manifest = readManifest(text);
  const w = selectWorkload(manifest, workload)!;
  return { manifest, w, container: w.containers[0] };
}

const sourceOf = (text: string, node?: Scalar) =>
  node?.range ? text.slice(node.range[0], node.range[1]) : undefined;
const unquoted = (t: string) => t.replace(/^(["'])(.*)\1$/, "$2");
const suffixOf = (t: string) => unquoted(t).replace(/^[+-]?(\d+\.?\d*|\.\d+)/, "");
const lineOf = (text: string, offset: number) => text.slice(0, offset).split("\n").length - 1;

// The documents as data, without the main container's edited quantities and deadline.
function dataWithout(text: string, workload: string | undefined, keys: string[], deadline: boolean): unknown {
  const { manifest, w, container } = mainOf(text, workload);
  const resources = container.get("resources", true);
  for (const section of ["requests", "limits"]) {
    const map = isMap(resources) ? resources.get(section, true) : undefined;
    if (isMap(map)) for (const key of keys) map.delete(key);
    if (isMap(resources) && !(isMap(map) && map.items.length > 0)) resources.delete(section);
  }
  if (!(isMap(resources) && resources.items.length > 0)) container.delete("resources");
  if (deadline && w.deadline) w.deadline.value = null;
  return manifest.documents.map((d) => d.toJS());
}

function checkManifest(s: DemoSubmission, prediction: Prediction): void {
  const options = { format: "kubernetes" as const, workload: s.workload };
  const out = planSubmissionEdit(s.text, prediction, undefined, options).edit.text;
  const was = mainOf(s.text, s.workload);
  const now = mainOf(out, s.workload);
  const before = parseManifest(s.text, { ...ctx, workload: s.workload }).spec.requested;
  const ok = recommended(prediction);
  // Cores go in the step the user wrote them in ("32": whole cores), as the server rounds them.
  if (ok.cores !== undefined) {
    const step = cpuStepOf(before.cores);
    ok.cores = Number((Math.ceil(ok.cores / step - 1e-6) * step).toPrecision(12));
  }
  const expected = { ...before };
  const edited: string[] = [];
  const allowed = new Set<number>();
  for (const [resource, key] of podResources) {
    const others = was.w.containers
      .filter((c) => c !== was.container)
      .reduce((sum, c) => sum + (readResource(c, key).effective ?? 0), 0);
    const v = ok[resource];
    const target = v === undefined ? undefined : v - others;
    const a = readResource(was.container, key);
    const b = readResource(now.container, key);
    const writable = target !== undefined && (target > 0 || (resource === "gpus" && target === 0));
    if (writable && !(target === 0 && !a.requestNode && !a.limitNode)) expected[requestField[resource]] = v;
    for (const [x, y] of [
      [a.requestNode, b.requestNode],
      [a.limitNode, b.limitNode],
    ] as const) {
      const textWas = sourceOf(s.text, x);
      const textNow = sourceOf(out, y)!;
      if (textWas === textNow) continue;
      // (1) Only a recommended resource is edited; (2) to the recommendation, as the user writes it.
      expect(writable).toBe(true);
      if (!edited.includes(key)) edited.push(key);
      if (x?.range) allowed.add(lineOf(s.text, x.range[0]));
      expect(Math.abs(parseQuantity(y?.value)! - target!)).toBeLessThanOrEqual(target! * 1e-12);
      const unit =
        textWas !== undefined && parseQuantity(x?.value) !== undefined ? suffixOf(textWas) : undefined;
      const count = unit === undefined ? 0 : target! / parseQuantity(`1${unit}`)!;
      if (count >= 1 && Math.abs(count - Math.round(count)) <= 1e-9 * count)
        expect(suffixOf(textNow)).toBe(unit);
      else expect(unquoted(textNow)).toBe(formatQuantity(target!, resource));
      if (x) expect(y?.type).toBe(x.type);
    }
    // Still valid, and in the user's pattern: a request equal to its limit stays equal to it.
    if (b.request !== undefined && b.limit !== undefined) {
      if (resource === "gpus" || a.request === a.limit) expect(b.request).toBe(b.limit);
      else expect(b.request).toBeLessThanOrEqual(b.limit);
    }
  }
  const deadlineMoved = sourceOf(s.text, was.w.deadline) !== sourceOf(out, now.w.deadline);
  if (ok.walltime !== undefined && Number.isInteger(Number(was.w.deadline?.value)))
    expected.walltimeSeconds = ok.walltime;
  else expect(deadlineMoved).toBe(false);
  if (deadlineMoved && was.w.deadline?.range) allowed.add(lineOf(s.text, was.w.deadline.range[0]));
  expect(parseManifest(out, { ...ctx, workload: s.workload }).spec.requested).toEqual(expected);

  // (3) Nothing but the edited quantities changes: as data, and line by line (added keys aside).
  expect(dataWithout(out, s.workload, edited, deadlineMoved)).toEqual(
    dataWithout(s.text, s.workload, edited, deadlineMoved),
  );
  const [start, end] = was.container.range!;
  const lines = lineChanges(s.text, out);
  const textLines = splitLines(s.text);
  for (const i of lines.removed) {
    const inContainer = i >= lineOf(s.text, start) && i <= lineOf(s.text, end);
    expect(allowed.has(i) || (inContainer && resourceLine.test(textLines[i].text))).toBe(true);
  }
  for (const j of lines.added) expect(splitLines(out)[j].text).toMatch(resourceLine);
}

describe("editing the demo's and the examples' submissions", () => {
  it("finds them all", () => {
    const files = new Set(submissions.map((s) => s.file));
    for (const file of [
      "examples/demo/job.sbatch",
      "examples/demo/pod.yaml",
      "examples/airflow/jobs/train.sbatch",
      "examples/argo/workflow-template.yaml",
    ])
      expect(files).toContain(file);
  });

  describe.each(submissions.filter((s) => s.format === "sbatch"))("$file", (s) => {
    it("edits only what has evidence, to the recommendation in the script's own form, and nothing else", () => {
      const asked = askedOf(parseSbatch(s.text, ctx).spec.requested);
      fc.assert(
        fc.property(predictionArb("sbatch", asked), (p) => checkSbatch(s.text, p)),
        runs,
      );
    });
  });

  describe.each(submissions.filter((s) => s.format === "kubernetes"))("$file $workload", (s) => {
    it("edits only what has evidence, to the recommendation in the manifest's own style, and nothing else", () => {
      const asked = askedOf(parseManifest(s.text, { ...ctx, workload: s.workload }).spec.requested);
      fc.assert(
        fc.property(predictionArb("kubernetes", asked), (p) => checkManifest(s, p)),
        runs,
      );
    });
  });
});
