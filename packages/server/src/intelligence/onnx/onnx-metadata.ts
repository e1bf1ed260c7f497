import type { StringStringEntryProto } from "./onnx-proto.js";

/** Keys Jobsight writes into an exported model's `metadata_props`. */
export const OnnxMetadataKey = {
  reservedPrefix: "jobsight.",
  modelVersion: "jobsight.model_version",
  /** JSON array of feature names in input column order. */
  featureNames: "jobsight.feature_names",
  /** `float64` or `float32`, see OnnxTreePrecision. */
  precision: "jobsight.precision",
  /** JSON array of `{ name, quantile, trees }`, one per output. */
  outputs: "jobsight.outputs",
  trainingDataStart: "jobsight.training_data_start",
  trainingDataEnd: "jobsight.training_data_end",
} as const;

/** Provenance of an exported model, read back from its `metadata_props`. */
export type OnnxModelMetadata = {
  modelVersion: string | undefined;
  featureNames: string[];
  outputs: { name: string; quantile: number; trees: number }[];
  trainingDataStart: string | undefined;
  trainingDataEnd: string | undefined;
  /** Every `metadata_props` entry, Jobsight's and others'. */
  props: Record<string, string>;
};

/** Reads Jobsight's keys out of `metadata_props`; models from elsewhere get empty fields. */
export function readOnnxModelMetadata(entries: readonly StringStringEntryProto[]): OnnxModelMetadata {
  const props: Record<string, string> = {};
  for (const { key, value } of entries) props[key] = value ?? "";
  return {
    modelVersion: props[OnnxMetadataKey.modelVersion],
    featureNames: parseJsonArray(props[OnnxMetadataKey.featureNames]) as string[],
    outputs: parseJsonArray(props[OnnxMetadataKey.outputs]) as OnnxModelMetadata["outputs"],
    trainingDataStart: props[OnnxMetadataKey.trainingDataStart],
    trainingDataEnd: props[OnnxMetadataKey.trainingDataEnd],
    props,
  };
}

function parseJsonArray(text: string | undefined): unknown[] {
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}
