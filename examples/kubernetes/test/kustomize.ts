import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";

/** A Kubernetes object as plain JSON; the checks walk into it freely. */
// biome-ignore lint/suspicious/noExplicitAny: manifests are walked into by the checks
export type Manifest = Record<string, any>;

/** Every YAML document of a file (empty documents skipped); a YAML error throws. */
export function yamlDocuments(file: string): Manifest[] {
  // YAML 1.1 as Kubernetes reads it: `defaultMode: 0440` is octal there, and decimal in YAML 1.2.
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { version: "1.1" });
  return docs.flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
    const value = doc.toJS() as Manifest | null;
    return value ? [value] : [];
  });
}

// The parts of a Kustomization this resolver implements; anything else fails instead of being
// ignored, so what the tests check is what `kubectl apply -k` would apply.
const KNOWN_KEYS = new Set(["apiVersion", "kind", "resources", "components", "patches"]);

/**
 * The objects `kubectl kustomize dir` builds, for the subset of Kustomize the examples use:
 * `resources` (files and folders with their own kustomization.yaml), `components` (their resource
 * files added and their patches applied after the resources') and JSON 6902 `patches` with a `target`.
 */
export function kustomize(dir: string): Manifest[] {
  const k = parse(readFileSync(join(dir, "kustomization.yaml"), "utf8"), { version: "1.1" }) as Manifest;
  for (const key of Object.keys(k)) {
    if (!KNOWN_KEYS.has(key))
      throw new Error(`${dir}: kustomization key ${key} is not handled by the test resolver`);
  }
  const objects = ((k.resources ?? []) as string[]).flatMap((r) => {
    const path = join(dir, r);
    return statSync(path).isDirectory() ? kustomize(path) : yamlDocuments(path);
  });
  for (const component of (k.components ?? []) as string[]) {
    applyPatches(join(dir, component), objects);
  }
  applyPatches(dir, objects, k);
  return objects;
}

/** Applies the `patches` of the kustomization in `dir` (or of `k`, already read) to `objects`. */
function applyPatches(dir: string, objects: Manifest[], k?: Manifest): void {
  k ??= parse(readFileSync(join(dir, "kustomization.yaml"), "utf8"), { version: "1.1" }) as Manifest;
  // A component's own objects join the build before its patches, as Kustomize does.
  if (k.kind === "Component")
    for (const r of (k.resources ?? []) as string[]) objects.push(...yamlDocuments(join(dir, r)));
  for (const patch of (k.patches ?? []) as Manifest[]) {
    const ops = parse(patch.path ? readFileSync(join(dir, patch.path), "utf8") : patch.patch, {
      version: "1.1",
    }) as Manifest[];
    const targets = objects.filter((o) => matches(o, patch.target ?? {}));
    if (targets.length === 0)
      throw new Error(`${dir}: a patch matches no object (${JSON.stringify(patch.target)})`);
    for (const target of targets) {
      const patched = applyPatch(target, ops);
      objects[objects.indexOf(target)] = patched;
    }
  }
}

function matches(object: Manifest, target: Manifest): boolean {
  const [group, version] = String(object.apiVersion).includes("/")
    ? String(object.apiVersion).split("/")
    : ["", object.apiVersion];
  return (
    (target.group === undefined || target.group === group) &&
    (target.version === undefined || target.version === version) &&
    (target.kind === undefined || target.kind === object.kind) &&
    (target.name === undefined || target.name === object.metadata?.name)
  );
}

/** RFC 6902 `add`, `replace`, `remove` and `test`, failing where the API server or Kustomize would. */
export function applyPatch<T>(document: T, ops: readonly Manifest[]): T {
  const root = { doc: structuredClone(document) as unknown };
  for (const op of ops) {
    const segments = ["doc", ...String(op.path).slice(1).split("/")].map((s) =>
      s.replaceAll("~1", "/").replaceAll("~0", "~"),
    );
    if (!String(op.path).startsWith("/") && op.path !== "") throw new Error(`bad path ${op.path}`);
    const last = segments.pop()!;
    let parent: unknown = root;
    for (const s of segments) {
      if (parent === null || typeof parent !== "object")
        throw new Error(`${op.op} ${op.path}: no parent at ${s}`);
      parent = (parent as Manifest)[s];
    }
    if (parent === null || typeof parent !== "object") throw new Error(`${op.op} ${op.path}: parent missing`);
    const container = parent as Manifest;
    if (Array.isArray(container)) {
      const index = last === "-" ? container.length : Number(last);
      const bound = op.op === "add" ? container.length : container.length - 1;
      if (!/^\d+$|^-$/.test(last) || index > bound) throw new Error(`${op.op} ${op.path}: bad index`);
      if (op.op === "add") container.splice(index, 0, structuredClone(op.value));
      else if (op.op === "replace") container[index] = structuredClone(op.value);
      else if (op.op === "remove") container.splice(index, 1);
      else if (op.op === "test") expectEqual(container[index], op);
      else throw new Error(`unsupported op ${op.op}`);
    } else {
      if (op.op !== "add" && !(last in container)) throw new Error(`${op.op} ${op.path}: no such member`);
      if (op.op === "add" || op.op === "replace") container[last] = structuredClone(op.value);
      else if (op.op === "remove") delete container[last];
      else if (op.op === "test") expectEqual(container[last], op);
      else throw new Error(`unsupported op ${op.op}`);
    }
  }
  return root.doc as T;
}

function expectEqual(actual: unknown, op: Manifest): void {
  if (JSON.stringify(actual) !== JSON.stringify(op.value)) throw new Error(`test ${op.path} failed`);
}

/** `kubectl kustomize dir`, or `undefined` where kubectl is not installed. */
export function kubectlKustomize(dir: string): Manifest[] | undefined {
  const kubectl = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => existsSync(p));
  if (!kubectl) return undefined;
  const out = execFileSync(kubectl, ["kustomize", dir], { encoding: "utf8", timeout: 60_000 });
  return parseAllDocuments(out).map((d) => d.toJS() as Manifest);
}
