/**
 * protobufjs JSON descriptors of `opentelemetry/proto/common/v1/common.proto` and
 * `opentelemetry/proto/resource/v1/resource.proto`, shared by every OTLP signal. Field numbers
 * and types as in the public opentelemetry-proto files; names in lowerCamelCase (the OTLP/JSON
 * keys).
 */

/** The `opentelemetry.proto.common` package (v1: AnyValue and friends, InstrumentationScope, EntityRef). */
export const otlpCommonDescriptor = {
  nested: {
    v1: {
      nested: {
        AnyValue: {
          oneofs: {
            value: {
              oneof: [
                "stringValue",
                "boolValue",
                "intValue",
                "doubleValue",
                "arrayValue",
                "kvlistValue",
                "bytesValue",
              ],
            },
          },
          fields: {
            stringValue: { type: "string", id: 1 },
            boolValue: { type: "bool", id: 2 },
            intValue: { type: "int64", id: 3 },
            doubleValue: { type: "double", id: 4 },
            arrayValue: { type: "ArrayValue", id: 5 },
            kvlistValue: { type: "KeyValueList", id: 6 },
            bytesValue: { type: "bytes", id: 7 },
          },
        },
        ArrayValue: {
          fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } },
        },
        KeyValueList: {
          fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } },
        },
        KeyValue: {
          fields: {
            key: { type: "string", id: 1 },
            value: { type: "AnyValue", id: 2 },
          },
        },
        InstrumentationScope: {
          fields: {
            name: { type: "string", id: 1 },
            version: { type: "string", id: 2 },
            attributes: { rule: "repeated", type: "KeyValue", id: 3 },
            droppedAttributesCount: { type: "uint32", id: 4 },
          },
        },
        EntityRef: {
          fields: {
            schemaUrl: { type: "string", id: 1 },
            type: { type: "string", id: 2 },
            idKeys: { rule: "repeated", type: "string", id: 3 },
            descriptionKeys: { rule: "repeated", type: "string", id: 4 },
          },
        },
      },
    },
  },
} as const;

/** The `opentelemetry.proto.resource` package (v1: Resource). */
export const otlpResourceDescriptor = {
  nested: {
    v1: {
      nested: {
        Resource: {
          fields: {
            attributes: {
              rule: "repeated",
              type: "opentelemetry.proto.common.v1.KeyValue",
              id: 1,
            },
            droppedAttributesCount: { type: "uint32", id: 2 },
            entityRefs: {
              rule: "repeated",
              type: "opentelemetry.proto.common.v1.EntityRef",
              id: 3,
            },
          },
        },
      },
    },
  },
} as const;
