import { describe, expect, it } from "vitest";
import {
  decodeManifest,
  encodeManifest,
  MANIFEST_FORMAT,
  ManifestError,
  type ModelManifest,
} from "./model-manifest.js";

describe("model manifest", () => {
  it("keeps non-finite numbers of calibration tables through JSON", () => {
    const manifest = {
      format: MANIFEST_FORMAT,
      version: "v1",
      createdAt: "2026-12-02T10:00:00.000Z",
      trainingDataRange: { start: "2026-01-01T00:00:00.000Z", end: "2026-12-01T00:00:00.000Z" },
      trainingJobs: 10,
      resources: {},
      skipped: { gpus: { jobs: 0, needed: 500 } },
      extra: { a: Number.POSITIVE_INFINITY, b: Number.NEGATIVE_INFINITY, c: Number.NaN, d: 1.5 },
    } as ModelManifest & { extra: Record<string, number> };
    const back = decodeManifest(encodeManifest(manifest)) as typeof manifest;
    expect(back.extra.a).toBe(Number.POSITIVE_INFINITY);
    expect(back.extra.b).toBe(Number.NEGATIVE_INFINITY);
    expect(back.extra.c).toBeNaN();
    expect(back).toEqual(manifest);
  });

  it("refuses bytes of another format", () => {
    expect(() => decodeManifest(Buffer.from('{"format":"other"}'))).toThrow(ManifestError);
    expect(() => decodeManifest(Buffer.from("not json"))).toThrow(ManifestError);
  });
});
