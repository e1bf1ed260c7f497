import { describe, expect, it } from "vitest";
import {
  expectedSpecRequest,
  fixed64,
  kv,
  len,
  specBytes,
  str,
  tag,
  uvar,
} from "../../test/otlp-spec-request.js";
import {
  createExportMetricsResponse,
  encodeExportMetricsRequest,
  encodeExportMetricsRequestJson,
  encodeExportMetricsResponse,
  encodeExportMetricsResponseJson,
} from "../encode/encode.js";
import { OtlpDecodeError } from "../errors.js";
import type { ExportMetricsServiceRequest } from "../otlp/otlp-types.js";
import {
  decodeExportMetricsHttpBody,
  decodeExportMetricsRequest,
  decodeExportMetricsRequestJson,
  decodeExportMetricsResponse,
  decodeExportMetricsResponseJson,
  otlpHttpEncoding,
} from "./decode.js";

function decodeError(run: () => unknown): OtlpDecodeError {
  try {
    run();
  } catch (error) {
    if (error instanceof OtlpDecodeError) return error;
    throw new Error(`expected OtlpDecodeError, got ${String(error)}`);
  }
  throw new Error("expected a decode error, got success");
}

describe("decodeExportMetricsRequest (protobuf)", () => {
  it("reads every message and field at the field numbers of the OTLP .proto files", () => {
    expect(decodeExportMetricsRequest(specBytes())).toEqual(expectedSpecRequest);
  });

  it("round-trips through our encoder in protobuf and OTLP/JSON", () => {
    expect(decodeExportMetricsRequest(encodeExportMetricsRequest(expectedSpecRequest))).toEqual(
      expectedSpecRequest,
    );
    const json = encodeExportMetricsRequestJson(expectedSpecRequest);
    expect(decodeExportMetricsRequestJson(json)).toEqual(expectedSpecRequest);
    expect(json).toContain('"traceId":"000102030405060708090a0b0c0d0e0f"');
    expect(json).toContain('"bytesValue":"3q0="');
  });

  it("keeps 64-bit extremes and non-finite doubles exact", () => {
    const request = structuredClone(expectedSpecRequest);
    const point = request.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge!.dataPoints[0];
    point.timeUnixNano = 18_446_744_073_709_551_615n;
    point.asDouble = Number.NaN;
    const sum = request.resourceMetrics[0].scopeMetrics[0].metrics[1].sum!.dataPoints[0];
    sum.asInt = -9_223_372_036_854_775_808n;
    const histogram = request.resourceMetrics[0].scopeMetrics[0].metrics[2].histogram!.dataPoints[0];
    histogram.explicitBounds = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
    expect(decodeExportMetricsRequest(encodeExportMetricsRequest(request))).toEqual(request);
    const json = encodeExportMetricsRequestJson(request);
    expect(json).toContain('"asDouble":"NaN"');
    expect(json).toContain('"explicitBounds":["-Infinity","Infinity"]');
    expect(decodeExportMetricsRequestJson(json)).toEqual(request);
  });

  it("treats an empty body as an empty request and skips unknown fields of every wire type", () => {
    expect(decodeExportMetricsRequest(new Uint8Array(0))).toEqual({ resourceMetrics: [] });
    const unknown = [...uvar(99, 5), ...fixed64(98, 1n), ...str(97, "x"), ...tag(96, 5), 1, 2, 3, 4];
    const body = Uint8Array.from([...unknown, ...specBytes()]);
    expect(decodeExportMetricsRequest(body)).toEqual(expectedSpecRequest);
  });

  it("reports every truncation of a valid body as a typed error, never a crash", () => {
    const whole = specBytes();
    const codes = new Set<string>();
    for (let cut = 1; cut < whole.length; cut++) {
      const error = decodeError(() => decodeExportMetricsRequest(whole.subarray(0, cut)));
      codes.add(error.code);
    }
    expect([...codes].sort()).toEqual(["OTLP_TRUNCATED"]);
  });

  it("names the field sent with the wrong wire type", () => {
    // resourceMetrics[0].scopeMetrics[0].metrics[0] where `name` (string) is sent as a varint.
    const body = Uint8Array.from(len(1, len(2, len(2, uvar(1, 7)))));
    const error = decodeError(() => decodeExportMetricsRequest(body));
    expect(error.code).toBe("OTLP_MALFORMED_PROTOBUF");
    expect(error.path).toBe("resourceMetrics[0].scopeMetrics[0].metrics[0]");
    expect(error.message).toMatch(/field name \(1\) has wire type 0, expected 2/);
  });

  it("refuses field number 0, invalid wire types, over-long varints and absurd nesting", () => {
    expect(decodeError(() => decodeExportMetricsRequest(Uint8Array.from([0x00, 0x01]))).code).toBe(
      "OTLP_MALFORMED_PROTOBUF",
    );
    expect(decodeError(() => decodeExportMetricsRequest(Uint8Array.from([0x0e, 0x01]))).message).toMatch(
      /invalid wire type 6/,
    );
    const longVarint = Uint8Array.from([...tag(99, 0), ...Array(10).fill(0xff), 0x01]);
    expect(decodeError(() => decodeExportMetricsRequest(longVarint)).code).toBe("OTLP_MALFORMED_PROTOBUF");

    // An attribute whose value is an array holding an array holding an array...
    let value: number[] = str(1, "leaf");
    for (let i = 0; i < 200; i++) value = len(5, len(1, value));
    const point = len(7, kv("deep", value));
    const body = Uint8Array.from(len(1, len(2, len(2, len(5, len(1, point))))));
    expect(decodeError(() => decodeExportMetricsRequest(body)).code).toBe("OTLP_NESTING_TOO_DEEP");
  });

  it("turns random bytes into a typed error or a request, never anything else", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 64) }, () =>
        Math.floor(random() * 256),
      );
      try {
        decodeExportMetricsRequest(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
      }
    }
  });
});

describe("decodeExportMetricsRequestJson (OTLP/JSON)", () => {
  const point = (extra: Record<string, unknown>) =>
    JSON.stringify({
      resourceMetrics: [
        { scopeMetrics: [{ metrics: [{ name: "m", gauge: { dataPoints: [{ ...extra }] } }] }] },
      ],
    });
  const firstPoint = (r: ExportMetricsServiceRequest) =>
    r.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge!.dataPoints[0];

  it("accepts int64 as strings or numbers and enums as integers or names", () => {
    const r = decodeExportMetricsRequestJson(point({ timeUnixNano: 1_700_000_000_000, asInt: "-42" }));
    expect(firstPoint(r)).toMatchObject({ timeUnixNano: 1_700_000_000_000n, asInt: -42n });
    const sum = (t: unknown) =>
      decodeExportMetricsRequestJson(
        JSON.stringify({
          resourceMetrics: [
            { scopeMetrics: [{ metrics: [{ name: "s", sum: { aggregationTemporality: t } }] }] },
          ],
        }),
      ).resourceMetrics[0].scopeMetrics[0].metrics[0].sum!.aggregationTemporality;
    expect(sum(1)).toBe(1);
    expect(sum("AGGREGATION_TEMPORALITY_CUMULATIVE")).toBe(2);
  });

  it("ignores unknown keys, including snake_case spellings, as the OTLP/JSON rules say", () => {
    const r = decodeExportMetricsRequestJson(
      point({ time_unix_nano: "5", timeUnixNano: "6", somethingNew: {} }),
    );
    expect(firstPoint(r).timeUnixNano).toBe(6n);
  });

  it("names the field of every wrong type", () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ timeUnixNano: "12abc" }, /timeUnixNano: expected a 64-bit integer/],
      [{ timeUnixNano: 1.5 }, /timeUnixNano: expected a 64-bit integer/],
      [{ timeUnixNano: "-1" }, /timeUnixNano: -1 does not fit/],
      [{ asDouble: "fast" }, /asDouble: expected a number/],
      [{ asDouble: 1, asInt: "1" }, /both asDouble and asInt are set/],
      [{ attributes: {} }, /attributes: expected an array/],
      [{ attributes: [{ key: 1 }] }, /attributes\[0\]\.key: expected a string/],
      [
        { attributes: [{ key: "k", value: { boolValue: "yes" } }] },
        /attributes\[0\]\.value\.boolValue: expected a boolean/,
      ],
      [{ flags: -1 }, /flags: -1 is outside/],
      [{ exemplars: [{ traceId: "xyz" }] }, /exemplars\[0\]\.traceId: expected an even-length hex string/],
    ];
    for (const [extra, message] of cases) {
      const error = decodeError(() => decodeExportMetricsRequestJson(point(extra)));
      expect(error.code).toBe("OTLP_INVALID_FIELD");
      expect(error.message).toMatch(
        /^resourceMetrics\[0\]\.scopeMetrics\[0\]\.metrics\[0\]\.gauge\.dataPoints\[0\][.:]/,
      );
      expect(error.message).toMatch(message);
    }
  });

  it("refuses text that is not a JSON object", () => {
    expect(decodeError(() => decodeExportMetricsRequestJson("{not json")).code).toBe("OTLP_MALFORMED_JSON");
    expect(decodeError(() => decodeExportMetricsRequestJson("[]")).code).toBe("OTLP_MALFORMED_JSON");
    expect(decodeError(() => decodeExportMetricsRequestJson('{"resourceMetrics":{}}')).code).toBe(
      "OTLP_INVALID_FIELD",
    );
  });
});

describe("responses and content types", () => {
  it("encodes partial success only when something was rejected or said", () => {
    expect(createExportMetricsResponse(0)).toEqual({});
    const response = createExportMetricsResponse(3, "unknown metric x");
    expect(decodeExportMetricsResponse(encodeExportMetricsResponse(response))).toEqual(response);
    expect(JSON.parse(encodeExportMetricsResponseJson(response))).toEqual({
      partialSuccess: { rejectedDataPoints: "3", errorMessage: "unknown metric x" },
    });
    expect(decodeExportMetricsResponseJson(encodeExportMetricsResponseJson(response))).toEqual(response);
    // partial_success = 1 { rejected_data_points = 1: 3, error_message = 2 }
    expect([...encodeExportMetricsResponse(createExportMetricsResponse(3))]).toEqual([
      0x0a, 0x02, 0x08, 0x03,
    ]);
  });

  it("picks the decoder from the content type", () => {
    expect(otlpHttpEncoding("application/x-protobuf")).toBe("protobuf");
    expect(otlpHttpEncoding("Application/JSON; charset=utf-8")).toBe("json");
    expect(decodeError(() => otlpHttpEncoding(undefined)).code).toBe("OTLP_UNSUPPORTED_CONTENT_TYPE");
    const body = new TextEncoder().encode('{"resourceMetrics":[]}');
    expect(decodeExportMetricsHttpBody(body, "application/json")).toEqual({ resourceMetrics: [] });
  });
});
