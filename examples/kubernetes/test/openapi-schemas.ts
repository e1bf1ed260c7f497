import * as k8s from "@kubernetes/client-node";
import type { Manifest } from "./kustomize.js";

type ModelModule = Record<string, new (data: Manifest) => { validate(): void }>;

// kubernetes-models: the Kubernetes OpenAPI schemas (and cert-manager's and Argo Workflows' CRD
// schemas) compiled to validators, one module per API group and version.
const MODELS: Record<string, () => Promise<unknown>> = {
  v1: () => import("kubernetes-models/v1"),
  "apps/v1": () => import("kubernetes-models/apps/v1"),
  "batch/v1": () => import("kubernetes-models/batch/v1"),
  "policy/v1": () => import("kubernetes-models/policy/v1"),
  "networking.k8s.io/v1": () => import("kubernetes-models/networking.k8s.io/v1"),
  "rbac.authorization.k8s.io/v1": () => import("kubernetes-models/rbac.authorization.k8s.io/v1"),
  "admissionregistration.k8s.io/v1": () => import("kubernetes-models/admissionregistration.k8s.io/v1"),
  "cert-manager.io/v1": () => import("@kubernetes-models/cert-manager/cert-manager.io/v1"),
  "argoproj.io/v1alpha1": () => import("@kubernetes-models/argo-workflows/argoproj.io/v1alpha1"),
};

/** Kinds of the examples that no published schema covers; their own test checks them. */
// The control-plane files of api-server/ are not API objects; api-server-certificate.test.ts checks them.
export const UNMODELLED = new Set([
  "argoproj.io/v1alpha1 EventSource",
  "argoproj.io/v1alpha1 Sensor",
  "apiserver.config.k8s.io/v1 AdmissionConfiguration",
  "v1 Config",
]);

/**
 * What the API server would refuse in `object`: its schema's violations (types, enums, required
 * fields) and, for built-in kinds, fields the schema does not know, which `kubectl apply` refuses
 * (field validation is strict by default) and an older client silently drops.
 */
export async function schemaProblems(object: Manifest): Promise<string[]> {
  const where = `${object.kind} ${object.metadata?.name}`;
  const load = MODELS[object.apiVersion];
  if (!load) return [`${where}: no schema for apiVersion ${object.apiVersion}`];
  const Model = ((await load()) as ModelModule)[object.kind];
  if (!Model) return [`${where}: ${object.apiVersion} has no kind ${object.kind}`];
  const problems: string[] = [];
  const argo = object.apiVersion === "argoproj.io/v1alpha1";
  try {
    new Model(argo ? argoRendered(object) : object).validate();
  } catch (error) {
    const messages = (error as Error).message.replace(/^Error: /, "").split(", ");
    // The package models Argo's ParallelSteps as an object; Argo's own schema has it as the
    // array of steps the examples write.
    const real = messages.filter((m) => !(argo && /\/steps\/\d+ must be object$/.test(m)));
    if (real.length > 0) problems.push(`${where}: ${real.join(", ")}`);
  }
  const builtIn = !String(object.apiVersion).includes(".") || String(object.apiVersion).includes(".k8s.io/");
  if (builtIn) unknownFields(object, `V1${object.kind}`, "", problems, where);
  return problems;
}

/**
 * An Argo object as Argo submits its pods: `{{workflow.parameters.x}}` replaced by the
 * parameter's value, `{{inputs.parameters.x}}` by a quantity, as after substitution.
 */
function argoRendered(object: Manifest): Manifest {
  const params = new Map<string, string>(
    (object.spec?.arguments?.parameters ?? []).map((p: Manifest) => [p.name, String(p.value ?? "")]),
  );
  const text = JSON.stringify(object)
    .replace(/\{\{workflow\.parameters\.([\w-]+)\}\}/g, (all, name) => params.get(name) ?? all)
    .replace(/\{\{inputs\.parameters\.[\w-]+\}\}/g, "1");
  return JSON.parse(text) as Manifest;
}

type AttributeTypeMap = { baseName: string; type: string }[];
const api = k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeTypeMap }>;

// The client library's models list every field of every built-in type: a strict-field walk.
function unknownFields(value: unknown, type: string, path: string, out: string[], where: string): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) unknownFields(v, array[1], `${path}/${i}`, out, where);
    }
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === "object")
      for (const [k, v] of Object.entries(value)) unknownFields(v, map[1], `${path}/${k}`, out, where);
    return;
  }
  const attributes = api[type]?.getAttributeTypeMap?.();
  if (!attributes || typeof value !== "object" || Array.isArray(value)) return;
  const known = new Map(attributes.map((a) => [a.baseName, a.type]));
  for (const [key, v] of Object.entries(value)) {
    const t = known.get(key);
    if (t === undefined) out.push(`${where}: ${path}/${key} is not a field of ${type}`);
    else unknownFields(v, t, `${path}/${key}`, out, where);
  }
}
