import { describe, expect, it } from "vitest";
import { len, str } from "../../test/otlp-spec-request.js";
import { usageSamples } from "../../test/usage-samples.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import { OtlpDecodeError } from "../errors.js";
import { keyValues } from "../mapping/attribute-values.js";
import type { ExportMetricsServiceRequest, Metric } from "../otlp/otlp-types.js";
import { decodeExportMetricsRequest } from "./decode.js";
import { decodeObservations } from "./decode-observations.js";
import { decodeObservationsProtobuf } from "./decode-observations-protobuf.js";
import type { DecodeObservationsOptions } from "./decoded-observations.js";

/** What the two-step decoder makes of `bytes`: observations, or the decode error's code. */
function twoStep(bytes: Uint8Array, options?: DecodeObservationsOptions) {
  try {
    return decodeObservations(decodeExportMetricsRequest(bytes), options);
  } catch (error) {
    if (error instanceof OtlpDecodeError) return error.code;
    throw error;
  }
}

function fused(bytes: Uint8Array, options?: DecodeObservationsOptions) {
  try {
    return decodeObservationsProtobuf(bytes, options);
  } catch (error) {
    if (error instanceof OtlpDecodeError) return error.code;
    throw error;
  }
}

/** A request with every kind of oddity the mapping must handle, besides the full samples. */
function oddRequest(): ExportMetricsServiceRequest {
  const request = encodeObservations(usageSamples());
  const rm = request.resourceMetrics[0];
  const metrics = rm.scopeMetrics[0].metrics;
  const time = 1_796_229_000_000_000_000n;
  const point = (attributes: [string, string | number | boolean][], value: number, flags = 0) => ({
    attributes: keyValues(attributes),
    startTimeUnixNano: 0n,
    timeUnixNano: time,
    exemplars: [],
    flags,
    asDouble: value,
  });
  const extra: Metric[] = [
    {
      name: "site.unknown",
      description: "",
      unit: "",
      metadata: [],
      gauge: { dataPoints: [point([], 1), point([], 2)] },
    },
    {
      name: "jobsight.jobs.count",
      description: "",
      unit: "",
      metadata: [],
      gauge: { dataPoints: [point([["user.name", "a"]], 3)] },
    },
    {
      name: "jobsight.job.memory.usage",
      description: "",
      unit: "By",
      metadata: [],
      histogram: {
        aggregationTemporality: 2,
        dataPoints: [
          {
            attributes: [],
            startTimeUnixNano: 0n,
            timeUnixNano: time,
            count: 1n,
            bucketCounts: [1n],
            explicitBounds: [],
            exemplars: [],
            flags: 0,
          },
        ],
      },
    },
    {
      name: "jobsight.job.process.count",
      description: "",
      unit: "",
      metadata: keyValues([["m", "x"]]),
      gauge: {
        dataPoints: [
          point([["jobsight.job.id", "odd-1"]], 4),
          point([["jobsight.job.id", "odd-2"]], -1),
          point([["jobsight.job.id", "odd-3"]], 5, 1),
          point([["jobsight.job.id", ""]], 6),
          point(
            [
              ["jobsight.job.id", 42],
              ["jobsight.cluster", "hpc2"],
            ],
            7,
          ),
          { ...point([["jobsight.job.id", "odd-4"]], 8), asDouble: undefined, asInt: 2n ** 60n },
          { ...point([["jobsight.job.id", "odd-5"]], 9), timeUnixNano: 0n },
        ],
      },
    },
  ];
  metrics.push(...extra);
  // An array, a kvlist and bytes on a point, which are not scalars and so never identity.
  metrics[0].gauge?.dataPoints[0].attributes.push(
    { key: "jobsight.job.id", value: { arrayValue: { values: [{ stringValue: "x" }] } } },
    { key: "k", value: { kvlistValue: { values: [{ key: "n", value: { intValue: 3n } }] } } },
    { key: "b", value: { bytesValue: Uint8Array.from([1, 2]) } },
  );
  return request;
}

describe("decodeObservationsProtobuf", () => {
  it("finds exactly what decodeObservations(decodeExportMetricsRequest(…)) finds", () => {
    for (const request of [encodeObservations(usageSamples()), oddRequest()]) {
      const bytes = encodeExportMetricsRequest(request);
      const expected = twoStep(bytes);
      expect(typeof expected).toBe("object");
      expect(fused(bytes)).toEqual(expected);
      expect(fused(bytes, { cluster: "hpc1" })).toEqual(twoStep(bytes, { cluster: "hpc1" }));
    }
  });

  it("rejects the points of other clusters when told the sender's cluster", () => {
    const bytes = encodeExportMetricsRequest(encodeObservations(usageSamples()));
    const all = decodeObservationsProtobuf(bytes);
    const own = decodeObservationsProtobuf(bytes, { cluster: "hpc1" });
    expect(new Set(own.samples.map((s) => s.cluster))).toEqual(new Set(["hpc1"]));
    expect(own.samples.length).toBeLessThan(all.samples.length);
    expect(Object.keys(own.rejected.reasons)).toEqual(["cluster hpc2 is not this sender's cluster (hpc1)"]);
  });

  it("reads the resource and the scope wherever they come in their message", () => {
    const request = encodeObservations(usageSamples().filter((s) => s.cluster === "hpc2"));
    const inOrder = encodeExportMetricsRequest(request);
    // ResourceMetrics = 1 { resource = 1, scope_metrics = 2 }: write the resource last.
    const rm = request.resourceMetrics[0];
    const resourceBytes = encodeExportMetricsRequest({ resourceMetrics: [{ ...rm, scopeMetrics: [] }] });
    const scopeBytes = encodeExportMetricsRequest({ resourceMetrics: [{ ...rm, resource: undefined }] });
    const swapped = Uint8Array.from(len(1, [...strip(scopeBytes), ...strip(resourceBytes)]));
    expect(decodeObservationsProtobuf(swapped)).toEqual(decodeObservationsProtobuf(inOrder));
    expect(decodeObservationsProtobuf(swapped)).toEqual(twoStep(swapped));
    // An unknown field between them changes nothing either.
    const withUnknown = Uint8Array.from(
      len(1, [...strip(scopeBytes), ...str(15, "x"), ...strip(resourceBytes)]),
    );
    expect(decodeObservationsProtobuf(withUnknown)).toEqual(decodeObservationsProtobuf(inOrder));
  });

  it("keeps apart times that share their low bits, and keeps nanoseconds", () => {
    const request = encodeObservations(usageSamples().filter((s) => s.cluster === "hpc2"));
    for (const metric of request.resourceMetrics[0].scopeMetrics[0].metrics) {
      const points = metric.gauge?.dataPoints ?? metric.sum?.dataPoints ?? [];
      const first = points[0];
      // 2^30 ns apart (same low 30 bits, told apart by the high ones), and a time off the millisecond.
      points.push(
        { ...first, timeUnixNano: first.timeUnixNano + 2n ** 30n },
        { ...first, timeUnixNano: first.timeUnixNano + 2n ** 32n },
        { ...first, timeUnixNano: first.timeUnixNano + 123_457n },
      );
    }
    const bytes = encodeExportMetricsRequest(request);
    const decoded = decodeObservationsProtobuf(bytes);
    expect(decoded).toEqual(twoStep(bytes));
    expect(decoded.samples.some((s) => /\.\d{9}Z$/.test(s.time))).toBe(true);
    expect(new Set(decoded.keys).size).toBe(decoded.samples.length);
  });

  it("fails on the same broken bodies as the two-step decoder, truncated or mutated", () => {
    const whole = encodeExportMetricsRequest(oddRequest());
    for (let cut = 1; cut < whole.length; cut += 7) {
      const bytes = whole.subarray(0, cut);
      expect(fused(bytes)).toBe(twoStep(bytes));
    }
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const counts = [0, 0];
    for (let i = 0; i < 400; i++) {
      const bytes = Uint8Array.from(whole);
      for (let flips = 1 + Math.floor(random() * 3); flips > 0; flips--) {
        bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      }
      const expected = twoStep(bytes);
      const actual = fused(bytes);
      counts[typeof expected === "string" ? 0 : 1]++;
      if (typeof expected === "string") expect(typeof actual).toBe("string");
      else expect(actual).toEqual(expected);
    }
    // Both kinds of outcome were compared, not just failures.
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });

  it("refuses a malformed earlier instance of a metric's data member, as the two-step decoder does", () => {
    // Found by the fuzzer (seed 7, over the plain request): a gauge metric's description tag (0x12)
    // turned into a second gauge (0x2a) whose text opens a group holding a field that overruns it.
    // Only the last instance holds the points, but protobuf parsers read (and so check) every one.
    const bytes = Uint8Array.from(encodeExportMetricsRequest(encodeObservations(usageSamples())));
    // The description of the pressure gauge (where the fuzzer hit it, whatever the names before it).
    const at = Buffer.from(bytes).indexOf("\u0012!Share of time stalled", 0, "latin1");
    expect(bytes[at]).toBe(0x12);
    bytes[at] = 0x2a;
    expect(twoStep(bytes)).toBe("OTLP_TRUNCATED");
    expect(fused(bytes)).toBe("OTLP_TRUNCATED");

    // The same by hand: a gauge whose data_points field claims 5 bytes of 1, then a valid gauge.
    const metric = [...str(1, "jobsight.job.memory.usage"), ...len(5, [0x0a, 0x05, 0x01]), ...len(5, [])];
    const request = Uint8Array.from(len(1, len(2, len(2, metric))));
    expect(twoStep(request)).toBe("OTLP_TRUNCATED");
    expect(fused(request)).toBe("OTLP_TRUNCATED");
  });
});

/** The body of the single top-level `resource_metrics` field of an encoded request. */
function strip(request: Uint8Array): number[] {
  let pos = 1;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = request[pos++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  return [...request.subarray(pos, pos + length)];
}
