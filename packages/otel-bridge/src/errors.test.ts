import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unpadTables } from "../test/markdown.js";
import { ObservationEncodeError, OtlpDecodeError, otelBridgeErrorCatalogue } from "./errors.js";

const readme = unpadTables(readFileSync(new URL("../README.md", import.meta.url), "utf8"));

describe("error catalogue", () => {
  it("documents every code in the README with its sentence", () => {
    for (const [code, meaning] of Object.entries(otelBridgeErrorCatalogue)) {
      expect(readme).toContain(`|\`${code}\`|${meaning}|`);
    }
    const documented = [...readme.matchAll(/^\|`([A-Z_]+)`\|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(otelBridgeErrorCatalogue).sort());
  });

  it("gives every error a stable code and keeps the path apart", () => {
    const decode = new OtlpDecodeError("OTLP_INVALID_FIELD", "expected a string", {
      path: "resourceMetrics[0]",
    });
    expect([decode.code, decode.path, decode.message]).toEqual([
      "OTLP_INVALID_FIELD",
      "resourceMetrics[0]",
      "resourceMetrics[0]: expected a string",
    ]);
    expect(new ObservationEncodeError("x").code).toBe("OBSERVATION_INVALID");
  });
});
