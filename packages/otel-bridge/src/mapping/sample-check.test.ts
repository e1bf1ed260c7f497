import { type UsageSample, validateUsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { usageSamples } from "../../test/usage-samples.js";
import { decodeObservationsProtobuf } from "../decode/decode-observations-protobuf.js";
import { encodeExportMetricsRequest } from "../encode/encode.js";
import { encodeObservations } from "../encode/encode-observations.js";
import { checkBuiltSample } from "./sample-check.js";

describe("checkBuiltSample", () => {
  it("accepts what the full validator accepts, for samples using every field", () => {
    for (const sample of usageSamples()) {
      expect(validateUsageSample(sample).ok).toBe(true);
      expect(checkBuiltSample(sample)).toEqual({ ok: true, value: sample });
    }
  });

  it("rejects bad values with the full validator's errors", () => {
    const [sample] = usageSamples();
    const bad = [
      { ...sample, time: "yesterday" },
      { ...sample, memory: { ...sample.memory, currentBytes: -1 } },
      { ...sample, jobId: "" },
      { ...sample, gpus: [{ index: 0, utilizationPercent: 140, memoryUsedBytes: 1 }] },
    ] as UsageSample[];
    for (const sample of bad) {
      const checked = checkBuiltSample(sample);
      expect(checked.ok).toBe(false);
      expect(checked).toEqual(validateUsageSample(sample));
    }
  });

  it("is only given samples whose every object the full validator accepts: the decoder adds no field", () => {
    // The check leaves out the closed-object test, on the decoder's promise that it writes only
    // fields the schema names. Every metric, decoded: each sample passes the full validator.
    const bytes = encodeExportMetricsRequest(encodeObservations(usageSamples()));
    const decoded = decodeObservationsProtobuf(bytes);
    expect(decoded.samples.length).toBeGreaterThan(0);
    for (const sample of decoded.samples) expect(validateUsageSample(sample).ok).toBe(true);
  });
});
