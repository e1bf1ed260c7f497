import { describe, expect, it } from "vitest";
import { usageSamples } from "../../test/usage-samples.js";
import { usageSampleKey } from "../mapping/sample-key.js";
import {
  decodeRejectedSamples,
  encodeRejectedSamples,
  rejectedSampleKey,
} from "./rejected-samples-metadata.js";

describe("rejected samples metadata", () => {
  const [a, b] = usageSamples();

  it("round-trips samples with shared reasons, keyed as rejectedSampleKey names them", () => {
    const encoded = encodeRejectedSamples([
      { key: usageSampleKey(a), points: 3, reason: "cluster x is not this sender's cluster (y)" },
      { key: usageSampleKey(b), points: 1, reason: "cluster x is not this sender's cluster (y)" },
    ]);
    expect(JSON.parse(encoded.toString()).reasons).toHaveLength(1);
    expect(decodeRejectedSamples(encoded)).toEqual([
      { key: rejectedSampleKey(a), points: 3, reason: "cluster x is not this sender's cluster (y)" },
      { key: rejectedSampleKey(b), points: 1, reason: "cluster x is not this sender's cluster (y)" },
    ]);
  });

  it("leaves out what does not fit in maxBytes", () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({
      key: usageSampleKey({ ...a, jobId: String(i) }),
      points: 1,
      reason: `reason ${i % 3}`,
    }));
    const encoded = encodeRejectedSamples(many, 2048);
    expect(encoded.length).toBeLessThanOrEqual(2048);
    const decoded = decodeRejectedSamples(encoded)!;
    expect(decoded.length).toBeGreaterThan(50);
    expect(decoded.length).toBeLessThan(1000);
    expect(decoded.map((s) => s.key)).toEqual(many.slice(0, decoded.length).map((s) => s.key.slice(0, 16)));
  });

  it("reads an absent, textual or malformed value as naming nothing", () => {
    expect(decodeRejectedSamples(undefined)).toBeUndefined();
    expect(decodeRejectedSamples("{}")).toBeUndefined();
    expect(decodeRejectedSamples(Buffer.from("not json"))).toBeUndefined();
    expect(decodeRejectedSamples(Buffer.from('{"reasons":[],"samples":[["k",-1,0]]}'))).toBeUndefined();
  });
});
