import protobuf from "protobufjs";

/*
 * The subset of onnx/onnx.proto (package `onnx`, proto2) that tree-ensemble export needs.
 * Field names and numbers are copied from the public onnx.proto so the JSON descriptor can be
 * checked against it line by line; names stay snake_case for that reason. Repeated scalars are
 * unpacked unless onnx.proto says `[packed = true]`, as proto2 requires. Enum fields
 * (AttributeProto.type) are declared int32, which has the same varint wire encoding.
 */

/** `AttributeProto.AttributeType`. */
export const AttributeType = {
  UNDEFINED: 0,
  FLOAT: 1,
  INT: 2,
  STRING: 3,
  TENSOR: 4,
  GRAPH: 5,
  FLOATS: 6,
  INTS: 7,
  STRINGS: 8,
  TENSORS: 9,
  GRAPHS: 10,
} as const;
export type AttributeType = (typeof AttributeType)[keyof typeof AttributeType];

/** `TensorProto.DataType` (the members export uses). */
export const TensorDataType = {
  UNDEFINED: 0,
  FLOAT: 1,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  DOUBLE: 11,
} as const;
export type TensorDataType = (typeof TensorDataType)[keyof typeof TensorDataType];

export type TensorProto = {
  dims?: number[];
  data_type?: number;
  float_data?: number[];
  int32_data?: number[];
  string_data?: Uint8Array[];
  int64_data?: number[];
  name?: string;
  raw_data?: Uint8Array;
  doc_string?: string;
  double_data?: number[];
};

export type AttributeProto = {
  name: string;
  type: AttributeType;
  doc_string?: string;
  f?: number;
  i?: number;
  s?: Uint8Array;
  t?: TensorProto;
  floats?: number[];
  ints?: number[];
  strings?: Uint8Array[];
  tensors?: TensorProto[];
};

export type NodeProto = {
  input?: string[];
  output?: string[];
  name?: string;
  op_type: string;
  domain?: string;
  attribute?: AttributeProto[];
  doc_string?: string;
};

export type TensorShapeDimension = { dim_value?: number; dim_param?: string; denotation?: string };

export type TypeProto = {
  tensor_type?: { elem_type: number; shape?: { dim?: TensorShapeDimension[] } };
  denotation?: string;
};

export type ValueInfoProto = { name: string; type?: TypeProto; doc_string?: string };

export type GraphProto = {
  node?: NodeProto[];
  name?: string;
  initializer?: TensorProto[];
  doc_string?: string;
  input?: ValueInfoProto[];
  output?: ValueInfoProto[];
  value_info?: ValueInfoProto[];
};

export type OperatorSetIdProto = { domain?: string; version: number };

export type StringStringEntryProto = { key: string; value: string };

export type ModelProto = {
  ir_version: number;
  opset_import?: OperatorSetIdProto[];
  producer_name?: string;
  producer_version?: string;
  domain?: string;
  model_version?: number;
  doc_string?: string;
  graph?: GraphProto;
  metadata_props?: StringStringEntryProto[];
};

const unpacked = { options: { packed: false } };
const packed = { options: { packed: true } };

const descriptor = {
  nested: {
    onnx: {
      nested: {
        AttributeProto: {
          fields: {
            name: { type: "string", id: 1 },
            ref_attr_name: { type: "string", id: 21 },
            doc_string: { type: "string", id: 13 },
            type: { type: "int32", id: 20 },
            f: { type: "float", id: 2 },
            i: { type: "int64", id: 3 },
            s: { type: "bytes", id: 4 },
            t: { type: "TensorProto", id: 5 },
            g: { type: "GraphProto", id: 6 },
            floats: { rule: "repeated", type: "float", id: 7, ...unpacked },
            ints: { rule: "repeated", type: "int64", id: 8, ...unpacked },
            strings: { rule: "repeated", type: "bytes", id: 9 },
            tensors: { rule: "repeated", type: "TensorProto", id: 10 },
            graphs: { rule: "repeated", type: "GraphProto", id: 11 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: "string", id: 1 },
            type: { type: "TypeProto", id: 2 },
            doc_string: { type: "string", id: 3 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: "repeated", type: "string", id: 1 },
            output: { rule: "repeated", type: "string", id: 2 },
            name: { type: "string", id: 3 },
            op_type: { type: "string", id: 4 },
            domain: { type: "string", id: 7 },
            attribute: { rule: "repeated", type: "AttributeProto", id: 5 },
            doc_string: { type: "string", id: 6 },
          },
        },
        ModelProto: {
          fields: {
            ir_version: { type: "int64", id: 1 },
            opset_import: { rule: "repeated", type: "OperatorSetIdProto", id: 8 },
            producer_name: { type: "string", id: 2 },
            producer_version: { type: "string", id: 3 },
            domain: { type: "string", id: 4 },
            model_version: { type: "int64", id: 5 },
            doc_string: { type: "string", id: 6 },
            graph: { type: "GraphProto", id: 7 },
            metadata_props: { rule: "repeated", type: "StringStringEntryProto", id: 14 },
          },
        },
        StringStringEntryProto: {
          fields: {
            key: { type: "string", id: 1 },
            value: { type: "string", id: 2 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: "repeated", type: "NodeProto", id: 1 },
            name: { type: "string", id: 2 },
            initializer: { rule: "repeated", type: "TensorProto", id: 5 },
            doc_string: { type: "string", id: 10 },
            input: { rule: "repeated", type: "ValueInfoProto", id: 11 },
            output: { rule: "repeated", type: "ValueInfoProto", id: 12 },
            value_info: { rule: "repeated", type: "ValueInfoProto", id: 13 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: "repeated", type: "int64", id: 1, ...unpacked },
            data_type: { type: "int32", id: 2 },
            float_data: { rule: "repeated", type: "float", id: 4, ...packed },
            int32_data: { rule: "repeated", type: "int32", id: 5, ...packed },
            string_data: { rule: "repeated", type: "bytes", id: 6 },
            int64_data: { rule: "repeated", type: "int64", id: 7, ...packed },
            name: { type: "string", id: 8 },
            doc_string: { type: "string", id: 12 },
            raw_data: { type: "bytes", id: 9 },
            double_data: { rule: "repeated", type: "double", id: 10, ...packed },
            uint64_data: { rule: "repeated", type: "uint64", id: 11, ...packed },
          },
        },
        TensorShapeProto: {
          fields: {
            dim: { rule: "repeated", type: "Dimension", id: 1 },
          },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ["dim_value", "dim_param"] } },
              fields: {
                dim_value: { type: "int64", id: 1 },
                dim_param: { type: "string", id: 2 },
                denotation: { type: "string", id: 3 },
              },
            },
          },
        },
        TypeProto: {
          oneofs: { value: { oneof: ["tensor_type"] } },
          fields: {
            tensor_type: { type: "Tensor", id: 1 },
            denotation: { type: "string", id: 6 },
          },
          nested: {
            Tensor: {
              fields: {
                elem_type: { type: "int32", id: 1 },
                shape: { type: "TensorShapeProto", id: 2 },
              },
            },
          },
        },
        OperatorSetIdProto: {
          fields: {
            domain: { type: "string", id: 1 },
            version: { type: "int64", id: 2 },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor);
const modelType = root.lookupType("onnx.ModelProto");

/** Serialises a model to the ONNX wire format. */
export function encodeModelProto(model: ModelProto): Uint8Array {
  const problem = modelType.verify(model);
  if (problem !== null) throw new TypeError(`invalid ModelProto: ${problem}`);
  // The plain object already has the wire types (numbers, Uint8Array), so fromObject's copy,
  // a third of the time for a 300-tree model, is skipped.
  return modelType.encode(model).finish();
}

/**
 * Parses ONNX wire bytes into the subset this module knows; unknown fields are skipped.
 * Throws whatever protobufjs throws for bytes that are not a protobuf message.
 */
export function decodeModelProto(bytes: Uint8Array): ModelProto {
  const message = modelType.decode(bytes);
  return modelType.toObject(message, { longs: Number, bytes: Uint8Array, defaults: false }) as ModelProto;
}
