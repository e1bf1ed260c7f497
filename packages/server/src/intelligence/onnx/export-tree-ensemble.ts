import type { TreeEnsemble } from "../model/tree-ensemble.js";
import { flattenTreeEnsemble } from "./flatten-tree-ensemble.js";
import { intAttribute } from "./onnx-attribute.js";
import { OnnxExportError } from "./onnx-errors.js";
import { OnnxMetadataKey } from "./onnx-metadata.js";
import {
  encodeModelProto,
  type ModelProto,
  type NodeProto,
  type StringStringEntryProto,
  TensorDataType,
  type ValueInfoProto,
} from "./onnx-proto.js";
import {
  ONNX_ML_DOMAIN,
  type OnnxTreePrecision,
  treeEnsembleRegressorNode,
} from "./tree-ensemble-regressor-node.js";

/*
 * ai.onnx.ml 3 (ONNX 1.10) is the first ML opset with the `*_as_tensor` tree attributes that
 * carry double thresholds and weights; ai.onnx.ml 5 deprecates TreeEnsembleRegressor in favour
 * of TreeEnsemble, so it must stay below 5. ai.onnx 17 (for Cast) with IR version 8 is ONNX 1.12,
 * far inside what ONNX Runtime 1.30 accepts, so older runtimes and tools load the models too.
 */
export const ONNX_IR_VERSION = 8;
export const ONNX_OPSET = 17;
export const ONNX_ML_OPSET = 3;

/** One named output of an exported model. */
export type OnnxEnsembleOutput = {
  /** Output tensor name, e.g. `memory_q90`. */
  name: string;
  ensemble: TreeEnsemble;
};

/** When the training data of a model starts and ends (ISO 8601). */
export type TrainingDataRange = { start: string; end: string };

/** Options of {@link exportTreeEnsembleToOnnx} and {@link exportTreeEnsemblesToOnnx}. */
export type OnnxExportOptions = {
  /**
   * Version of the trained model, stored under `jobsight.model_version`.
   * @default "unversioned"
   */
  modelVersion?: string;
  /**
   * Time span of the training data, stored under `jobsight.training_data_start` / `_end`.
   * @default undefined (not recorded)
   */
  trainingDataRange?: TrainingDataRange;
  /**
   * Further `metadata_props`; keys must not start with `jobsight.` (reserved for the keys above).
   * @default {}
   */
  metadata?: Readonly<Record<string, string>>;
  /**
   * Numeric precision of thresholds and leaf weights, see {@link OnnxTreePrecision}.
   * @default "float64"
   */
  precision?: OnnxTreePrecision;
  /**
   * Name of the float[N, F] input tensor.
   * @default "features"
   */
  inputName?: string;
  /**
   * Name of the single output of {@link exportTreeEnsembleToOnnx} (ignored by the plural form).
   * @default "value"
   */
  outputName?: string;
  /**
   * Name of the ONNX graph.
   * @default "jobsight_tree_ensemble"
   */
  graphName?: string;
};

/**
 * Exports one ensemble as an ONNX model: input `features` float[N, F], output `value` float[N, 1].
 *
 * @example
 * const bytes = exportTreeEnsembleToOnnx(ensemble, { modelVersion: "memory-2025-06-01" });
 * const runner = await OnnxModelRunner.load(bytes);
 */
export function exportTreeEnsembleToOnnx(
  ensemble: TreeEnsemble,
  options: OnnxExportOptions = {},
): Uint8Array {
  return exportTreeEnsemblesToOnnx([{ name: options.outputName ?? "value", ensemble }], options);
}

/**
 * Exports several ensembles over the same features (e.g. the 0.5 and 0.9 quantiles of several
 * resources) as one model with one float[N, 1] output per ensemble, all fed by one input.
 *
 * @example
 * const bytes = exportTreeEnsemblesToOnnx([
 *   { name: "memory_q50", ensemble: q50 },
 *   { name: "memory_q90", ensemble: q90 },
 * ]);
 */
export function exportTreeEnsemblesToOnnx(
  outputs: readonly OnnxEnsembleOutput[],
  options: OnnxExportOptions = {},
): Uint8Array {
  const precision = options.precision ?? "float64";
  const inputName = options.inputName ?? "features";
  const featureNames = checkOutputs(outputs, inputName);
  const nodes: NodeProto[] = [];
  let treeInput = inputName;
  if (precision === "float64") {
    // TreeEnsembleRegressor keeps thresholds in the input's type, so double needs a double input.
    treeInput = `${inputName}_float64`;
    if (outputs.some((o) => o.name === treeInput)) {
      throw new OnnxExportError("outputs", `the name ${treeInput} is used internally`);
    }
    nodes.push({
      input: [inputName],
      output: [treeInput],
      name: "cast_features",
      op_type: "Cast",
      domain: "",
      attribute: [intAttribute("to", TensorDataType.DOUBLE)],
    });
  }
  outputs.forEach((output, i) => {
    const flat = flattenTreeEnsemble(output.ensemble, `outputs[${i}].ensemble`);
    nodes.push(treeEnsembleRegressorNode(flat, treeInput, output.name, precision));
  });
  const model: ModelProto = {
    ir_version: ONNX_IR_VERSION,
    opset_import: [
      { domain: "", version: ONNX_OPSET },
      { domain: ONNX_ML_DOMAIN, version: ONNX_ML_OPSET },
    ],
    producer_name: "jobsight",
    doc_string: "Tree ensembles trained by Jobsight; see metadata_props for provenance.",
    graph: {
      name: options.graphName ?? "jobsight_tree_ensemble",
      node: nodes,
      input: [floatMatrix(inputName, featureNames.length)],
      output: outputs.map((o) => floatMatrix(o.name, 1)),
    },
    metadata_props: metadataProps(outputs, featureNames, precision, options),
  };
  return encodeModelProto(model);
}

/** Checks names and that every ensemble reads the same feature columns; returns those columns. */
function checkOutputs(outputs: readonly OnnxEnsembleOutput[], inputName: string): string[] {
  if (outputs.length === 0) throw new OnnxExportError("outputs", "at least one ensemble is required");
  const names = new Set<string>();
  const featureNames = outputs[0].ensemble.featureNames;
  outputs.forEach((output, i) => {
    if (output.name === "") throw new OnnxExportError(`outputs[${i}].name`, "must not be empty");
    if (output.name === inputName || names.has(output.name)) {
      throw new OnnxExportError(`outputs[${i}].name`, `${output.name} is already used`);
    }
    names.add(output.name);
    const own = output.ensemble.featureNames;
    if (own.length !== featureNames.length || own.some((name, j) => name !== featureNames[j])) {
      throw new OnnxExportError(
        `outputs[${i}].ensemble.featureNames`,
        "differs from outputs[0]; ensembles in one model share one input",
      );
    }
  });
  return [...featureNames];
}

function floatMatrix(name: string, columns: number): ValueInfoProto {
  return {
    name,
    type: {
      tensor_type: {
        elem_type: TensorDataType.FLOAT,
        shape: { dim: [{ dim_param: "N" }, { dim_value: columns }] },
      },
    },
  };
}

function metadataProps(
  outputs: readonly OnnxEnsembleOutput[],
  featureNames: string[],
  precision: OnnxTreePrecision,
  options: OnnxExportOptions,
): StringStringEntryProto[] {
  const entries: StringStringEntryProto[] = [
    { key: OnnxMetadataKey.modelVersion, value: options.modelVersion ?? "unversioned" },
    { key: OnnxMetadataKey.featureNames, value: JSON.stringify(featureNames) },
    { key: OnnxMetadataKey.precision, value: precision },
    {
      key: OnnxMetadataKey.outputs,
      value: JSON.stringify(
        outputs.map((o) => ({ name: o.name, quantile: o.ensemble.quantile, trees: o.ensemble.trees.length })),
      ),
    },
  ];
  if (options.trainingDataRange !== undefined) {
    entries.push(
      { key: OnnxMetadataKey.trainingDataStart, value: options.trainingDataRange.start },
      { key: OnnxMetadataKey.trainingDataEnd, value: options.trainingDataRange.end },
    );
  }
  for (const [key, value] of Object.entries(options.metadata ?? {})) {
    if (key.startsWith(OnnxMetadataKey.reservedPrefix)) {
      throw new OnnxExportError(
        `metadata.${key}`,
        `keys starting with ${OnnxMetadataKey.reservedPrefix} are reserved`,
      );
    }
    entries.push({ key, value });
  }
  return entries;
}
