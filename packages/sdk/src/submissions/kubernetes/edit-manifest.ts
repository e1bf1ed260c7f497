import {
  planQuantityWrites,
  type QuantityKind,
  type ResourceName,
  type QuantitySection as Section,
  type SubmissionEdit,
} from "@jobsight/schemas";
import { isMap, isScalar, type Pair, type Scalar, type YAMLMap } from "yaml";
import type { ResourceTargets, SkippedResource } from "../edit-plan.js";
import type { FormatEdit } from "../sbatch/edit-sbatch.js";
import { dominantEol } from "../text-lines.js";
import { readResource, resourceKeys } from "./container-resources.js";
import { readManifest, selectWorkload, type Workload } from "./manifest-workloads.js";
import {
  addToMap,
  applyTextEdits,
  fillEmptyValue,
  type InsertStyle,
  indentStep,
  type KeyTree,
  replaceScalar,
  type TextEdit,
} from "./yaml-text-edits.js";

/** Options of {@link editManifest}. */
export type ManifestEditOptions = {
  /** The workload to edit (id, name or Argo template name); by default the one `parseManifest` reads. */
  workload?: string;
  /** The container to resize; by default the first of the workload. */
  container?: string;
};

type Write = { resource: ResourceName; section: Section; key: string; value: string; node?: Scalar };

const editable = [
  ["memory", resourceKeys.memory],
  ["cores", resourceKeys.cores],
  ["gpus", resourceKeys.gpus],
] as const;

// Which of requests/limits to write is decided by planQuantityWrites of @jobsight/schemas, the
// server's webhook's rule too; here each write only gets the YAML node it replaces.
function plan(resource: QuantityKind, key: string, container: YAMLMap, value: number): Write[] {
  const r = readResource(container, key);
  const written = { request: r.requestNode?.value, limit: r.limitNode?.value };
  return planQuantityWrites(resource, written, value).map((w) => ({
    resource,
    section: w.section,
    key,
    value: w.value,
    node: w.section === "requests" ? r.requestNode : r.limitNode,
  }));
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
}

function isEmpty(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

// Turn the writes that add keys into as few insertions as possible: one per map that grows.
function additions(text: string, container: YAMLMap, adds: Write[], style: InsertStyle): TextEdit[] {
  const edits: TextEdit[] = [];
  const tree: Record<Section, KeyTree> = { requests: {}, limits: {} };
  for (const a of adds) tree[a.section][a.key] = a.value;
  const sections = (Object.keys(tree) as Section[]).filter((s) => Object.keys(tree[s]).length > 0);
  const whole: KeyTree = Object.fromEntries(sections.map((s) => [s, tree[s]]));
  const resourcesPair = pairOf(container, "resources");
  if (!resourcesPair) return [addToMap(text, container, { resources: whole }, style)];
  const resources = resourcesPair.value;
  if (isEmpty(resources)) return [fillEmptyValue(text, resourcesPair, whole, style)];
  if (!isMap(resources)) throw new SyntaxError("resources is not a map");
  const missing: KeyTree = {};
  for (const section of sections) {
    const pair = pairOf(resources, section);
    if (!pair) missing[section] = tree[section];
    else if (isEmpty(pair.value)) edits.push(fillEmptyValue(text, pair, tree[section], style));
    else if (isMap(pair.value)) edits.push(addToMap(text, pair.value, tree[section], style));
    else throw new SyntaxError(`resources.${section} is not a map`);
  }
  if (Object.keys(missing).length > 0) edits.push(addToMap(text, resources, missing, style));
  return edits;
}

function lineAt(text: string, offset: number): { number: number; text: string } {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const end = text.indexOf("\n", offset);
  const line = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, "");
  return { number: text.slice(0, start).split("\n").length, text: line };
}

function mainContainer(workload: Workload, name: string | undefined): YAMLMap | undefined {
  if (name === undefined) return workload.containers[0];
  return workload.containers.find((c) => c.get("name") === name);
}

/**
 * Edit the resources of one container of a Kubernetes manifest in place: the quantities that are
 * there are replaced (quoting kept, and their unit when the new value is whole in it), missing
 * ones are added under the container's `resources` in the manifest's own style. Every other byte
 * stays as it was. Targets are for the whole pod; other containers' requests are subtracted.
 */
export function editManifest(
  text: string,
  targets: ResourceTargets,
  options: ManifestEditOptions = {},
): FormatEdit {
  const manifest = readManifest(text);
  if (manifest.errors.length > 0) throw new SyntaxError(`not valid YAML: ${manifest.errors[0]}`);
  const workload = selectWorkload(manifest, options.workload);
  if (!workload) throw new SyntaxError("no workload with containers to edit in this manifest");
  const container = mainContainer(workload, options.container);
  if (!container) throw new SyntaxError(`no container named ${options.container} in ${workload.id}`);
  const containerIndex = workload.containers.indexOf(container);
  const skipped: SkippedResource[] = [];
  const writes: Write[] = [];

  for (const [resource, key] of editable) {
    const target = targets[resource];
    if (target === undefined) continue;
    const others = workload.containers
      .filter((c) => c !== container)
      .reduce((sum, c) => sum + (readResource(c, key).effective ?? 0), 0);
    const value = target - others;
    if (value < 0 || (value === 0 && resource !== "gpus")) {
      skipped.push({ resource, reason: "the other containers already ask for that much; not edited" });
      continue;
    }
    writes.push(...plan(resource, key, container, value));
  }
  if (targets.walltime !== undefined) {
    const deadline = workload.deadline;
    if (deadline && Number.isInteger(Number(deadline.value))) {
      const seconds = String(Math.ceil(targets.walltime));
      if (String(deadline.value) !== seconds)
        writes.push({ resource: "walltime", section: "limits", key: "", value: seconds, node: deadline });
    } else {
      skipped.push({
        resource: "walltime",
        reason: "no activeDeadlineSeconds is set; not adding a deadline",
      });
    }
  }
  if (targets.gpuMemory !== undefined) {
    skipped.push({
      resource: "gpuMemory",
      reason: "Kubernetes has no request for GPU memory; choose a GPU type instead",
    });
  }

  const doc = manifest.documents[workload.docIndex];
  const step = indentStep(text, container, workload.podSpec, isMap(doc.contents) ? doc.contents : undefined);
  const style = { step, eol: dominantEol(text), json: text.trimStart().startsWith("{") };
  const edits: TextEdit[] = [];
  for (const w of writes.filter((x) => x.node)) {
    const edit = replaceScalar(w.node!, w.value, style.json);
    if (edit) edits.push(edit);
    else skipped.push({ resource: w.resource, reason: `${w.key} is a block scalar; not edited` });
  }
  const adds = writes.filter((w) => !w.node);
  if (adds.length > 0) edits.push(...additions(text, container, adds, style));
  const edited = applyTextEdits(text, edits);
  return { text: edited, changes: changesOf(text, edited, workload.id, containerIndex, writes), skipped };
}

// Where each changed resource now sits, read back from the edited text itself.
function changesOf(
  before: string,
  after: string,
  workloadId: string,
  containerIndex: number,
  writes: Write[],
) {
  const changes: SubmissionEdit["changes"] = [];
  if (writes.length === 0) return changes;
  const workload = readManifest(after).workloads.find((w) => w.id === workloadId)!;
  const container = workload.containers[containerIndex];
  for (const w of writes) {
    if (changes.some((c) => c.resource === w.resource)) continue;
    let node: Scalar | undefined;
    if (w.resource === "walltime") node = workload.deadline;
    else {
      const r = readResource(container, w.key);
      node = w.section === "requests" ? r.requestNode : r.limitNode;
    }
    const now = lineAt(after, node!.range![0]);
    const was = w.node ? lineAt(before, w.node.range![0]).text : undefined;
    changes.push({
      resource: w.resource,
      ...(was === undefined ? {} : { before: was }),
      after: now.text,
      line: now.number,
    });
  }
  return changes.sort((a, b) => a.line - b.line);
}
