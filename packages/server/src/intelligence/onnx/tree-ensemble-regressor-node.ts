import type { FlatTreeEnsemble } from "./flatten-tree-ensemble.js";
import { float32AtMost } from "./float32.js";
import {
  doubleTensorAttribute,
  floatsAttribute,
  intAttribute,
  intsAttribute,
  stringAttribute,
  stringsAttribute,
} from "./onnx-attribute.js";
import type { AttributeProto, NodeProto } from "./onnx-proto.js";

/** The `ai.onnx.ml` domain name. */
export const ONNX_ML_DOMAIN = "ai.onnx.ml";

/**
 * Numeric precision of the exported trees.
 * - `float64`: thresholds, leaf weights and base score as DOUBLE tensor attributes (ai.onnx.ml
 *   opset 3); the float input is cast to double first, so splits and the sum match the TypeScript
 *   evaluation on float32 inputs up to the final rounding of the output to float32.
 * - `float32`: the opset 1 float attributes; thresholds are rounded down to float32, which keeps
 *   every split exact for float32 inputs, but leaf weights are rounded and summed in float32.
 */
export type OnnxTreePrecision = "float64" | "float32";

/** One TreeEnsembleRegressor node computing `flat` from `input` into `output` (shape [N, 1]). */
export function treeEnsembleRegressorNode(
  flat: FlatTreeEnsemble,
  input: string,
  output: string,
  precision: OnnxTreePrecision,
): NodeProto {
  const attribute: AttributeProto[] = [
    stringAttribute("aggregate_function", "SUM"),
    stringAttribute("post_transform", "NONE"),
    intAttribute("n_targets", 1),
    intsAttribute("nodes_treeids", flat.treeIds),
    intsAttribute("nodes_nodeids", flat.nodeIds),
    intsAttribute("nodes_featureids", flat.featureIds),
    stringsAttribute("nodes_modes", flat.modes),
    intsAttribute("nodes_truenodeids", flat.trueNodeIds),
    intsAttribute("nodes_falsenodeids", flat.falseNodeIds),
    // NaN (a missing feature) follows the true branch, i.e. left, like evaluateTree.
    intsAttribute(
      "nodes_missing_value_tracks_true",
      flat.modes.map(() => 1),
    ),
    intsAttribute("target_treeids", flat.targetTreeIds),
    intsAttribute("target_nodeids", flat.targetNodeIds),
    intsAttribute(
      "target_ids",
      flat.targetNodeIds.map(() => 0),
    ),
  ];
  if (precision === "float64") {
    attribute.push(
      doubleTensorAttribute("nodes_values_as_tensor", flat.thresholds),
      doubleTensorAttribute("target_weights_as_tensor", flat.targetWeights),
      doubleTensorAttribute("base_values_as_tensor", [flat.baseScore]),
    );
  } else {
    attribute.push(
      floatsAttribute("nodes_values", flat.thresholds.map(float32AtMost)),
      floatsAttribute("target_weights", flat.targetWeights.map(Math.fround)),
      floatsAttribute("base_values", [Math.fround(flat.baseScore)]),
    );
  }
  return {
    input: [input],
    output: [output],
    name: `${output}_trees`,
    op_type: "TreeEnsembleRegressor",
    domain: ONNX_ML_DOMAIN,
    attribute,
  };
}
