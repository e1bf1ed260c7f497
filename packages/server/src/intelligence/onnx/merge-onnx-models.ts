import { OnnxModelLoadError } from "./onnx-errors.js";
import {
  decodeModelProto,
  encodeModelProto,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TypeProto,
} from "./onnx-proto.js";

/** One model to merge, and the prefix its names take in the merged graph. */
export type OnnxModelPart = { prefix: string; bytes: Uint8Array };

/**
 * Merges models exported by `exportTreeEnsemblesToOnnx` into one model whose graph holds each of
 * them side by side, unchanged but for their names: every input, output, node and intermediate
 * value of part `p` is renamed `p/name`. One ONNX Runtime session then evaluates every part in
 * one run, so a run's fixed cost is paid once per prediction, not once per resource (see
 * docs/performance.md). The parts' own nodes are served as they were stored, so the files in the
 * object store stay what is evaluated.
 *
 * Throws {@link OnnxModelLoadError} when a part is not a model or the parts disagree on the IR or
 * operator set versions.
 *
 * @example
 * ```ts
 * const merged = mergeOnnxModels([{ prefix: "memory", bytes: memoryOnnx }, { prefix: "walltime", bytes: walltimeOnnx }]);
 * // inputs memory/features and walltime/features; outputs memory/centre, memory/upper, …
 * ```
 */
export function mergeOnnxModels(parts: readonly OnnxModelPart[]): Uint8Array {
  if (parts.length === 0) throw new OnnxModelLoadError("no model to merge");
  const prefixes = new Set<string>();
  const models = parts.map((part) => {
    if (part.prefix === "" || part.prefix.includes("/") || prefixes.has(part.prefix)) {
      throw new OnnxModelLoadError(`merge prefix "${part.prefix}" must be unique, non-empty and without "/"`);
    }
    prefixes.add(part.prefix);
    let model: ModelProto;
    try {
      model = decodeModelProto(part.bytes);
    } catch (cause) {
      throw new OnnxModelLoadError(`model ${part.prefix} is not an ONNX ModelProto`, { cause });
    }
    if (!model.graph) throw new OnnxModelLoadError(`model ${part.prefix} has no graph`);
    return { prefix: part.prefix, model };
  });
  const first = models[0].model;
  const opsets = new Map((first.opset_import ?? []).map((o) => [o.domain ?? "", o.version]));
  for (const { prefix, model } of models) {
    const same =
      model.ir_version === first.ir_version &&
      (model.opset_import ?? []).length === opsets.size &&
      (model.opset_import ?? []).every((o) => opsets.get(o.domain ?? "") === o.version);
    if (!same) throw new OnnxModelLoadError(`model ${prefix} has other IR or operator set versions`);
  }
  const merged: ModelProto = {
    ir_version: first.ir_version,
    opset_import: first.opset_import,
    producer_name: first.producer_name,
    doc_string: `Merged from ${models.map((m) => m.prefix).join(", ")}.`,
    graph: { name: "jobsight_merged", node: [], input: [], output: [], initializer: [] },
  };
  const graph = merged.graph as Required<Pick<GraphProto, "node" | "input" | "output" | "initializer">>;
  for (const { prefix, model } of models) {
    const g = model.graph as GraphProto;
    const rename = (name: string) => (name === "" ? name : `${prefix}/${name}`);
    for (const node of g.node ?? []) graph.node.push(renamedNode(node, rename));
    for (const input of g.input ?? [])
      graph.input.push({ ...input, name: rename(input.name), type: renamedDims(input.type, prefix) });
    for (const output of g.output ?? [])
      graph.output.push({ ...output, name: rename(output.name), type: renamedDims(output.type, prefix) });
    for (const t of g.initializer ?? []) graph.initializer.push({ ...t, name: rename(t.name ?? "") });
  }
  return encodeModelProto(merged);
}

function renamedNode(node: NodeProto, rename: (name: string) => string): NodeProto {
  return {
    ...node,
    name: node.name !== undefined ? rename(node.name) : undefined,
    input: (node.input ?? []).map(rename),
    output: (node.output ?? []).map(rename),
  };
}

// The row count of each part is its own: `N` of one part need not equal another's.
function renamedDims(type: TypeProto | undefined, prefix: string): TypeProto | undefined {
  const dims = type?.tensor_type?.shape?.dim;
  if (!type?.tensor_type || !dims) return type;
  return {
    ...type,
    tensor_type: {
      ...type.tensor_type,
      shape: { dim: dims.map((d) => (d.dim_param ? { ...d, dim_param: `${prefix}_${d.dim_param}` } : d)) },
    },
  };
}
