import { type Document, isMap, isScalar, isSeq, parseAllDocuments, type Scalar, type YAMLMap } from "yaml";

/** One thing in a manifest that runs as a pod: a Pod, the pod template of a Job, an Argo template… */
export type Workload = {
  /** `Kind/name`, plus `#template` for an Argo template, e.g. `Workflow/train#main`. */
  id: string;
  kind: string;
  /** The object's name (or generateName), or the Argo template's name. */
  name: string;
  /** The object's name (or generateName). */
  objectName: string;
  docIndex: number;
  /** The containers that run together, in manifest order (Argo `container`/`script` is one). */
  containers: YAMLMap[];
  /** Where nodeSelector and priorityClassName live. */
  podSpec?: YAMLMap;
  /** `activeDeadlineSeconds`, the closest thing Kubernetes has to a walltime limit. */
  deadline?: Scalar;
  namespace?: string;
  labels: Record<string, string>;
  /** For an Indexed Job: its completions, i.e. the size of the array. */
  indexedCompletions?: number;
  /** Argo's entrypoint template is the default one to predict. */
  entrypoint?: boolean;
};

/** A parsed manifest: the YAML documents and the workloads found in them. */
export type Manifest = { documents: Document.Parsed[]; workloads: Workload[]; errors: string[] };

const podTemplateKinds = new Set([
  "Deployment",
  "StatefulSet",
  "DaemonSet",
  "ReplicaSet",
  "ReplicationController",
]);
const argoKinds = new Set(["Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"]);

/** A child map, or undefined. */
export function mapAt(node: unknown, ...path: string[]): YAMLMap | undefined {
  let current: unknown = node;
  for (const key of path) {
    if (!isMap(current)) return undefined;
    current = current.get(key, true);
  }
  return isMap(current) ? current : undefined;
}

function scalarAt(node: unknown, key: string): Scalar | undefined {
  const value = isMap(node) ? node.get(key, true) : undefined;
  return isScalar(value) ? value : undefined;
}

function stringAt(node: unknown, key: string): string | undefined {
  const value = scalarAt(node, key)?.value;
  return value === null || value === undefined ? undefined : String(value);
}

function labelsOf(...maps: (YAMLMap | undefined)[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const map of maps) {
    for (const pair of map?.items ?? []) {
      if (isScalar(pair.key) && isScalar(pair.value))
        labels[String(pair.key.value)] = String(pair.value.value);
    }
  }
  return labels;
}

function containersOf(podSpec: YAMLMap | undefined): YAMLMap[] {
  const list = podSpec?.get("containers", true);
  return isSeq(list) ? list.items.filter((c): c is YAMLMap => isMap(c)) : [];
}

function fromObject(object: YAMLMap, docIndex: number, into: Workload[]): void {
  const kind = stringAt(object, "kind") ?? "";
  const metadata = mapAt(object, "metadata");
  const name = stringAt(metadata, "name") ?? stringAt(metadata, "generateName") ?? "unnamed";
  const namespace = stringAt(metadata, "namespace");
  const base = { kind, name, objectName: name, docIndex, namespace };
  if (kind === "List") {
    const items = object.get("items", true);
    if (isSeq(items)) for (const item of items.items) if (isMap(item)) fromObject(item, docIndex, into);
    return;
  }
  if (kind === "Pod") {
    const podSpec = mapAt(object, "spec");
    into.push({
      ...base,
      id: `Pod/${name}`,
      containers: containersOf(podSpec),
      podSpec,
      deadline: scalarAt(podSpec, "activeDeadlineSeconds"),
      labels: labelsOf(mapAt(metadata, "labels")),
    });
    return;
  }
  if (kind === "Job" || kind === "CronJob" || podTemplateKinds.has(kind)) {
    const ownerSpec =
      kind === "CronJob" ? mapAt(object, "spec", "jobTemplate", "spec") : mapAt(object, "spec");
    const template = mapAt(ownerSpec, "template");
    const podSpec = mapAt(template, "spec");
    const isJob = kind === "Job" || kind === "CronJob";
    const indexed = isJob && stringAt(ownerSpec, "completionMode") === "Indexed";
    const completions = Number(stringAt(ownerSpec, "completions"));
    into.push({
      ...base,
      id: `${kind}/${name}`,
      containers: containersOf(podSpec),
      podSpec,
      deadline: isJob
        ? (scalarAt(ownerSpec, "activeDeadlineSeconds") ?? scalarAt(podSpec, "activeDeadlineSeconds"))
        : undefined,
      labels: labelsOf(mapAt(metadata, "labels"), mapAt(template, "metadata", "labels")),
      ...(indexed && Number.isInteger(completions) && completions > 0
        ? { indexedCompletions: completions }
        : {}),
    });
    return;
  }
  if (argoKinds.has(kind)) {
    const workflowSpec =
      kind === "CronWorkflow" ? mapAt(object, "spec", "workflowSpec") : mapAt(object, "spec");
    const entrypoint = stringAt(workflowSpec, "entrypoint");
    const templates = workflowSpec?.get("templates", true);
    if (!isSeq(templates)) return;
    for (const template of templates.items) {
      if (!isMap(template)) continue;
      const templateName = stringAt(template, "name") ?? "unnamed";
      const single = mapAt(template, "container") ?? mapAt(template, "script");
      const set = mapAt(template, "containerSet");
      const containers = single ? [single] : containersOf(set);
      if (containers.length === 0) continue;
      into.push({
        ...base,
        id: `${kind}/${name}#${templateName}`,
        name: templateName,
        containers,
        podSpec: template,
        deadline: scalarAt(template, "activeDeadlineSeconds"),
        labels: labelsOf(mapAt(metadata, "labels"), mapAt(template, "metadata", "labels")),
        entrypoint: templateName === entrypoint,
      });
    }
  }
}

/** Parse a (multi-document) manifest and find every workload in it. */
export function readManifest(text: string): Manifest {
  const parsed = parseAllDocuments(text);
  const documents = Array.isArray(parsed) ? parsed : [];
  const errors = documents.flatMap((d) => d.errors.map((e) => e.message));
  const workloads: Workload[] = [];
  documents.forEach((doc, i) => {
    if (isMap(doc.contents)) fromObject(doc.contents, i, workloads);
  });
  return { documents, workloads, errors };
}

/**
 * Pick the workload to predict: the one named (by id, name or template name), else an Argo
 * entrypoint with containers, else the first workload with containers.
 */
export function selectWorkload(manifest: Manifest, name?: string): Workload | undefined {
  const candidates = manifest.workloads.filter((w) => w.containers.length > 0);
  if (name !== undefined)
    return candidates.find((w) => w.id === name || w.name === name || w.id.endsWith(`#${name}`));
  return candidates.find((w) => w.entrypoint) ?? candidates[0];
}
