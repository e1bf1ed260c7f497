import type { ExportMetricsServiceRequest, KeyValue } from "../src/otlp/otlp-types.js";

/**
 * An OTLP metrics request that sets every field of every message, twice: as bytes written by
 * hand from the field numbers of the OTLP .proto files, and as the object the decoder must
 * return. The bytes use a tiny writer independent of protobufjs and of our descriptor.
 */

// A hand-rolled protobuf writer, independent of protobufjs and of our descriptor, so the
// field numbers below are checked against the OTLP .proto files, not against themselves.
export const varint = (n: bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? b | 0x80 : b);
  } while (v);
  return out;
};
export const tag = (id: number, wire: number) => varint(BigInt((id << 3) | wire));
export const len = (id: number, body: number[]) => [...tag(id, 2), ...varint(BigInt(body.length)), ...body];
export const str = (id: number, s: string) => len(id, [...Buffer.from(s)]);
export const fixed64 = (id: number, v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, v));
  return [...tag(id, 1), ...b];
};
const dbl = (id: number, v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return [...tag(id, 1), ...b];
};
export const uvar = (id: number, v: bigint | number) => [...tag(id, 0), ...varint(BigInt(v))];
const zigzag = (v: number) => BigInt(v >= 0 ? v * 2 : -v * 2 - 1);

export const kv = (key: string, anyValue: number[]) => [...str(1, key), ...len(2, anyValue)];

/** Every field of every metrics message, encoded from the field numbers in the OTLP .proto files. */
export function specBytes(): Uint8Array {
  const attrs = [
    ...len(7, kv("s", str(1, "x"))),
    ...len(7, kv("b", uvar(2, 1))),
    ...len(7, kv("i", uvar(3, -3n))),
    ...len(7, kv("d", dbl(4, 2.5))),
    ...len(7, kv("a", len(5, len(1, str(1, "e"))))),
    ...len(7, kv("k", len(6, len(1, kv("n", uvar(3, 1)))))),
    ...len(7, kv("y", len(7, [0xde, 0xad]))),
    ...len(7, kv("empty", [])),
  ];
  const exemplar = [
    ...len(7, kv("f", str(1, "v"))),
    ...fixed64(2, 11n),
    ...fixed64(6, -9n), // as_int, sfixed64
    ...len(4, [1, 2, 3, 4, 5, 6, 7, 8]),
    ...len(
      5,
      Array.from({ length: 16 }, (_, i) => i),
    ),
  ];
  const numberPoint = [
    ...attrs,
    ...fixed64(2, 1n),
    ...fixed64(3, 2n),
    ...dbl(4, 0.5),
    ...len(5, exemplar),
    ...uvar(8, 1),
  ];
  const histogramPoint = [
    ...len(9, kv("h", str(1, "1"))),
    ...fixed64(2, 3n),
    ...fixed64(3, 4n),
    ...fixed64(4, 3n),
    ...dbl(5, 6.5),
    ...len(6, [...Buffer.alloc(8, 0).fill(1, 0, 1), ...Buffer.alloc(8, 0).fill(2, 0, 1)]), // packed fixed64 [1, 2]
    ...len(7, [...Buffer.from(new Float64Array([2.0]).buffer)]), // packed double [2]
    ...uvar(10, 0),
    ...dbl(11, 0.5),
    ...dbl(12, 4),
  ];
  const exponentialPoint = [
    ...len(1, kv("e", str(1, "1"))),
    ...fixed64(2, 5n),
    ...fixed64(3, 6n),
    ...fixed64(4, 4n),
    ...dbl(5, 10),
    ...uvar(6, zigzag(-2)), // scale, sint32
    ...fixed64(7, 1n),
    ...len(8, [...uvar(1, zigzag(-1)), ...len(2, [2, 1])]), // packed uint64 [2, 1]
    ...len(9, [...uvar(1, zigzag(3))]),
    ...uvar(10, 1),
    ...dbl(12, 0),
    ...dbl(13, 7),
    ...dbl(14, 0.001),
  ];
  const summaryPoint = [
    ...len(7, kv("q", str(1, "1"))),
    ...fixed64(2, 7n),
    ...fixed64(3, 8n),
    ...fixed64(4, 10n),
    ...dbl(5, 55),
    ...len(6, [...dbl(1, 0.5), ...dbl(2, 5)]),
    ...uvar(8, 0),
  ];
  const metric = (name: string, dataId: number, data: number[]) => [
    ...str(1, name),
    ...str(2, `${name} description`),
    ...str(3, "By"),
    ...len(dataId, data),
    ...len(12, kv("meta", str(1, "m"))),
  ];
  const scope = [...str(1, "scope"), ...str(2, "9.9"), ...len(3, kv("sa", uvar(2, 0))), ...uvar(4, 2)];
  const scopeMetrics = [
    ...len(1, scope),
    ...len(2, metric("gauge", 5, len(1, numberPoint))),
    ...len(
      2,
      metric("sum", 7, [...len(1, [...fixed64(3, 9n), ...fixed64(6, 77n)]), ...uvar(2, 1), ...uvar(3, 1)]),
    ),
    ...len(2, metric("histogram", 9, [...len(1, histogramPoint), ...uvar(2, 2)])),
    ...len(2, metric("exponential", 10, [...len(1, exponentialPoint), ...uvar(2, 1)])),
    ...len(2, metric("summary", 11, len(1, summaryPoint))),
    ...str(3, "https://opentelemetry.io/schemas/1.26.0"),
  ];
  const entityRef = [
    ...str(1, "e-schema"),
    ...str(2, "host"),
    ...str(3, "host.name"),
    ...str(4, "host.arch"),
  ];
  const resource = [...len(1, kv("host.name", str(1, "n1"))), ...uvar(2, 4), ...len(3, entityRef)];
  const resourceMetrics = [...len(1, resource), ...len(2, scopeMetrics), ...str(3, "r-schema")];
  return Uint8Array.from(len(1, resourceMetrics));
}

const a = (key: string, value: KeyValue["value"]): KeyValue => ({ key, value });

export const expectedSpecRequest: ExportMetricsServiceRequest = {
  resourceMetrics: [
    {
      resource: {
        attributes: [a("host.name", { stringValue: "n1" })],
        droppedAttributesCount: 4,
        entityRefs: [
          { schemaUrl: "e-schema", type: "host", idKeys: ["host.name"], descriptionKeys: ["host.arch"] },
        ],
      },
      schemaUrl: "r-schema",
      scopeMetrics: [
        {
          scope: {
            name: "scope",
            version: "9.9",
            attributes: [a("sa", { boolValue: false })],
            droppedAttributesCount: 2,
          },
          schemaUrl: "https://opentelemetry.io/schemas/1.26.0",
          metrics: [
            {
              name: "gauge",
              description: "gauge description",
              unit: "By",
              metadata: [a("meta", { stringValue: "m" })],
              gauge: {
                dataPoints: [
                  {
                    attributes: [
                      a("s", { stringValue: "x" }),
                      a("b", { boolValue: true }),
                      a("i", { intValue: -3n }),
                      a("d", { doubleValue: 2.5 }),
                      a("a", { arrayValue: { values: [{ stringValue: "e" }] } }),
                      a("k", { kvlistValue: { values: [a("n", { intValue: 1n })] } }),
                      a("y", { bytesValue: new Uint8Array([0xde, 0xad]) }),
                      a("empty", {}),
                    ],
                    startTimeUnixNano: 1n,
                    timeUnixNano: 2n,
                    asDouble: 0.5,
                    exemplars: [
                      {
                        filteredAttributes: [a("f", { stringValue: "v" })],
                        timeUnixNano: 11n,
                        asInt: -9n,
                        spanId: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]),
                        traceId: new Uint8Array(Array.from({ length: 16 }, (_, i) => i)),
                      },
                    ],
                    flags: 1,
                  },
                ],
              },
            },
            {
              name: "sum",
              description: "sum description",
              unit: "By",
              metadata: [a("meta", { stringValue: "m" })],
              sum: {
                dataPoints: [
                  {
                    attributes: [],
                    startTimeUnixNano: 0n,
                    timeUnixNano: 9n,
                    asInt: 77n,
                    exemplars: [],
                    flags: 0,
                  },
                ],
                aggregationTemporality: 1,
                isMonotonic: true,
              },
            },
            {
              name: "histogram",
              description: "histogram description",
              unit: "By",
              metadata: [a("meta", { stringValue: "m" })],
              histogram: {
                aggregationTemporality: 2,
                dataPoints: [
                  {
                    attributes: [a("h", { stringValue: "1" })],
                    startTimeUnixNano: 3n,
                    timeUnixNano: 4n,
                    count: 3n,
                    sum: 6.5,
                    bucketCounts: [1n, 2n],
                    explicitBounds: [2],
                    exemplars: [],
                    flags: 0,
                    min: 0.5,
                    max: 4,
                  },
                ],
              },
            },
            {
              name: "exponential",
              description: "exponential description",
              unit: "By",
              metadata: [a("meta", { stringValue: "m" })],
              exponentialHistogram: {
                aggregationTemporality: 1,
                dataPoints: [
                  {
                    attributes: [a("e", { stringValue: "1" })],
                    startTimeUnixNano: 5n,
                    timeUnixNano: 6n,
                    count: 4n,
                    sum: 10,
                    scale: -2,
                    zeroCount: 1n,
                    positive: { offset: -1, bucketCounts: [2n, 1n] },
                    negative: { offset: 3, bucketCounts: [] },
                    flags: 1,
                    exemplars: [],
                    min: 0,
                    max: 7,
                    zeroThreshold: 0.001,
                  },
                ],
              },
            },
            {
              name: "summary",
              description: "summary description",
              unit: "By",
              metadata: [a("meta", { stringValue: "m" })],
              summary: {
                dataPoints: [
                  {
                    attributes: [a("q", { stringValue: "1" })],
                    startTimeUnixNano: 7n,
                    timeUnixNano: 8n,
                    count: 10n,
                    sum: 55,
                    quantileValues: [{ quantile: 0.5, value: 5 }],
                    flags: 0,
                  },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
};
