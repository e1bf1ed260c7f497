import { type AttributeProto, AttributeType, TensorDataType, type TensorProto } from "./onnx-proto.js";

/*
 * Builders for the AttributeProto shapes tree ensembles use. The `type` discriminator is always
 * set because IR version 2 and later require it.
 */

const utf8 = new TextEncoder();

export function intAttribute(name: string, value: number): AttributeProto {
  return { name, type: AttributeType.INT, i: value };
}

export function intsAttribute(name: string, values: number[]): AttributeProto {
  return { name, type: AttributeType.INTS, ints: values };
}

export function floatsAttribute(name: string, values: number[]): AttributeProto {
  return { name, type: AttributeType.FLOATS, floats: values };
}

export function stringAttribute(name: string, value: string): AttributeProto {
  return { name, type: AttributeType.STRING, s: utf8.encode(value) };
}

export function stringsAttribute(name: string, values: string[]): AttributeProto {
  return { name, type: AttributeType.STRINGS, strings: values.map((v) => utf8.encode(v)) };
}

/** A 1-D DOUBLE tensor attribute, stored as little-endian `raw_data` as onnx.proto prescribes. */
export function doubleTensorAttribute(name: string, values: number[]): AttributeProto {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i], true);
  const tensor: TensorProto = { dims: [values.length], data_type: TensorDataType.DOUBLE, raw_data: raw };
  return { name, type: AttributeType.TENSOR, t: tensor };
}
