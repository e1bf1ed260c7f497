import { describe, expect, it } from "vitest";
import { doubleTensorAttribute, floatsAttribute, intsAttribute, stringsAttribute } from "./onnx-attribute.js";
import { decodeModelProto, encodeModelProto, type ModelProto, TensorDataType } from "./onnx-proto.js";

describe("onnx-proto", () => {
  it("uses the onnx.proto field numbers at the top level of ModelProto", () => {
    // ir_version = 1 (varint), opset_import = 8 (message), metadata_props = 14 (message).
    const bytes = encodeModelProto({
      ir_version: 8,
      opset_import: [{ domain: "", version: 17 }],
      metadata_props: [{ key: "k", value: "v" }],
    });
    expect(Buffer.from(bytes).toString("hex")).toBe(["0808", "42040a001011", "72060a016b120176"].join(""));
  });

  it("decodes what it encodes, attributes of every type export uses included", () => {
    const model: ModelProto = {
      ir_version: 8,
      opset_import: [{ domain: "ai.onnx.ml", version: 3 }],
      producer_name: "jobsight",
      graph: {
        name: "g",
        node: [
          {
            input: ["x"],
            output: ["y"],
            op_type: "TreeEnsembleRegressor",
            domain: "ai.onnx.ml",
            attribute: [
              intsAttribute("nodes_treeids", [0, 0, 1, 2 ** 40]),
              floatsAttribute("nodes_values", [0.5, -2]),
              stringsAttribute("nodes_modes", ["BRANCH_LEQ", "LEAF"]),
              doubleTensorAttribute("base_values_as_tensor", [0.1]),
            ],
          },
        ],
        input: [
          {
            name: "x",
            type: {
              tensor_type: {
                elem_type: TensorDataType.FLOAT,
                shape: { dim: [{ dim_param: "N" }, { dim_value: 3 }] },
              },
            },
          },
        ],
      },
      metadata_props: [{ key: "a", value: "b" }],
    };
    const decoded = decodeModelProto(encodeModelProto(model));
    const attribute = decoded.graph?.node?.[0].attribute ?? [];
    expect(attribute[0].ints).toEqual([0, 0, 1, 2 ** 40]);
    expect(attribute[1].floats).toEqual([0.5, -2]);
    expect(attribute[2].strings?.map((s) => Buffer.from(s).toString())).toEqual(["BRANCH_LEQ", "LEAF"]);
    const tensor = attribute[3].t!;
    expect(tensor.data_type).toBe(TensorDataType.DOUBLE);
    expect(new DataView(tensor.raw_data!.buffer, tensor.raw_data!.byteOffset).getFloat64(0, true)).toBe(0.1);
    expect(decoded.graph?.input?.[0].type?.tensor_type?.shape?.dim).toEqual([
      { dim_param: "N" },
      { dim_value: 3 },
    ]);
    expect(decoded.metadata_props).toEqual([{ key: "a", value: "b" }]);
    expect(decoded.opset_import).toEqual([{ domain: "ai.onnx.ml", version: 3 }]);
  });

  it("throws on bytes that are not a protobuf message", () => {
    // graph (field 7) claims 5 bytes but 1 follows; wire type 7 does not exist.
    expect(() => decodeModelProto(Uint8Array.from([0x3a, 0x05, 0x01]))).toThrow();
    expect(() => decodeModelProto(Uint8Array.from([0x0f]))).toThrow();
  });
});
