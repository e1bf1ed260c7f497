import { isObject, type PointerSegment, valueAt } from "./json-patch.js";

/** One container of a workload and where it sits in the admitted object. */
export type ContainerRef = {
  path: PointerSegment[];
  name: string;
  container: Record<string, unknown>;
};

/** Something in the admitted object that becomes pods: a Pod, a Job's template, an Argo template… */
export type PodWorkload = {
  /** `Kind namespace/name`, plus `#template` for an Argo template. */
  id: string;
  kind: string;
  /** Name of the object (or its generateName). */
  objectName: string;
  /** Argo template name, for Argo templates and Argo workflow pods. */
  template?: string;
  /** Where the pods' metadata lives; `jobsight.io/changes` is written there so the pods inherit it. */
  metadataPath: PointerSegment[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Pod-level fields: serviceAccountName, priorityClassName, nodeSelector, activeDeadlineSeconds. */
  podFields: Record<string, unknown>;
  containers: ContainerRef[];
  initContainers: ContainerRef[];
  /** The Argo workflow a pod belongs to, when it is one of Argo's pods. */
  argoWorkflow?: string;
  /** Size of the array for Indexed Jobs. */
  indexedCompletions?: number;
};

const ARGO_KINDS = new Set(["Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow"]);

function strings(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

function refs(list: unknown, base: PointerSegment[]): ContainerRef[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((c, i) =>
    isObject(c)
      ? [{ path: [...base, i], name: typeof c.name === "string" ? c.name : `#${i}`, container: c }]
      : [],
  );
}

function nameOf(metadata: unknown, fallback?: string): string {
  const m = isObject(metadata) ? metadata : {};
  if (typeof m.name === "string" && m.name) return m.name;
  if (typeof m.generateName === "string" && m.generateName) return m.generateName;
  return fallback ?? "unnamed";
}

/** A pod template (Pod, Job template, CronJob template) at `specPath`/`metadataPath`. */
function podTemplate(
  root: Record<string, unknown>,
  kind: string,
  id: string,
  objectName: string,
  specPath: PointerSegment[],
  metadataPath: PointerSegment[],
  extra: Record<string, string>,
): PodWorkload | undefined {
  const spec = valueAt(root, specPath);
  if (!isObject(spec)) return undefined;
  const metadata = valueAt(root, metadataPath);
  return {
    id,
    kind,
    objectName,
    metadataPath,
    labels: { ...extra, ...strings(valueAt(metadata, ["labels"])) },
    annotations: strings(valueAt(metadata, ["annotations"])),
    podFields: spec,
    containers: refs(spec.containers, [...specPath, "containers"]),
    initContainers: refs(spec.initContainers, [...specPath, "initContainers"]),
  };
}

function argoTemplates(
  root: Record<string, unknown>,
  kind: string,
  objectId: string,
  objectName: string,
): PodWorkload[] {
  const specPath: PointerSegment[] = kind === "CronWorkflow" ? ["spec", "workflowSpec"] : ["spec"];
  const spec = valueAt(root, specPath);
  const templates = valueAt(spec, ["templates"]);
  if (!Array.isArray(templates)) return [];
  const objectLabels = strings(valueAt(root, ["metadata", "labels"]));
  return templates.flatMap((t, i): PodWorkload[] => {
    if (!isObject(t)) return [];
    const base: PointerSegment[] = [...specPath, "templates", i];
    const containers = isObject(t.container)
      ? [{ path: [...base, "container"], name: "main", container: t.container }]
      : isObject(t.script)
        ? [{ path: [...base, "script"], name: "main", container: t.script }]
        : refs(valueAt(t, ["containerSet", "containers"]), [...base, "containerSet", "containers"]);
    if (containers.length === 0) return [];
    const template = typeof t.name === "string" ? t.name : `#${i}`;
    return [
      {
        id: `${objectId}#${template}`,
        kind,
        objectName,
        template,
        metadataPath: [...base, "metadata"],
        labels: { ...objectLabels, ...strings(valueAt(t, ["metadata", "labels"])) },
        annotations: strings(valueAt(t, ["metadata", "annotations"])),
        podFields: { ...(isObject(spec) ? spec : {}), ...t },
        containers,
        initContainers: refs(t.initContainers, [...base, "initContainers"]),
      },
    ];
  });
}

/** What the review says about the object besides the object itself. */
export type ReviewedObject = {
  kind: string;
  namespace?: string;
  name?: string;
  object: Record<string, unknown>;
};

/**
 * The workloads of an admitted object: one for a Pod, a Job or a CronJob (its pod template), one
 * per container template of an Argo Workflow, WorkflowTemplate, ClusterWorkflowTemplate or
 * CronWorkflow. Empty for any other kind.
 *
 * @example
 * ```ts
 * podWorkloads({ kind: "Job", namespace: "ml", object: job })[0].containers[0].path; // ["spec", "template", "spec", "containers", 0]
 * ```
 */
export function podWorkloads(reviewed: ReviewedObject): PodWorkload[] {
  const { kind, object } = reviewed;
  const objectName = nameOf(object.metadata, reviewed.name);
  const ns =
    reviewed.namespace ??
    (isObject(object.metadata) ? (object.metadata.namespace as string | undefined) : undefined);
  const objectId = `${kind} ${ns ? `${ns}/` : ""}${objectName}`;
  if (kind === "Pod") {
    const w = podTemplate(object, kind, objectId, objectName, ["spec"], ["metadata"], {});
    if (!w) return [];
    const workflow = w.labels["workflows.argoproj.io/workflow"];
    if (workflow) {
      w.argoWorkflow = workflow;
      const template = argoTemplateName(w.annotations);
      if (template) w.template = template;
    }
    return [w];
  }
  if (kind === "Job") {
    const w = podTemplate(
      object,
      kind,
      objectId,
      objectName,
      ["spec", "template", "spec"],
      ["spec", "template", "metadata"],
      strings(valueAt(object, ["metadata", "labels"])),
    );
    const completions = valueAt(object, ["spec", "completions"]);
    if (
      w &&
      valueAt(object, ["spec", "completionMode"]) === "Indexed" &&
      Number.isInteger(completions) &&
      (completions as number) >= 1
    )
      w.indexedCompletions = completions as number;
    return w ? [w] : [];
  }
  if (kind === "CronJob") {
    const base: PointerSegment[] = ["spec", "jobTemplate", "spec", "template"];
    const w = podTemplate(
      object,
      kind,
      objectId,
      objectName,
      [...base, "spec"],
      [...base, "metadata"],
      strings(valueAt(object, ["metadata", "labels"])),
    );
    return w ? [w] : [];
  }
  if (ARGO_KINDS.has(kind)) return argoTemplates(object, kind, objectId, objectName);
  return [];
}

// Argo records the template of a pod in annotations: `workflows.argoproj.io/template` (the
// template as JSON, older releases) or the node name `<workflow>.<step>` (always).
function argoTemplateName(annotations: Record<string, string>): string | undefined {
  const json = annotations["workflows.argoproj.io/template"];
  if (json) {
    try {
      const parsed = JSON.parse(json) as unknown;
      if (isObject(parsed) && typeof parsed.name === "string") return parsed.name;
    } catch {
      // fall through to the node name
    }
  }
  return annotations["workflows.argoproj.io/node-name"];
}
