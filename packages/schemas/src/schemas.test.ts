import { describe, expect, it } from "vitest";
import { wireSchemas } from "./api/generated-files.js";
import { validExamples } from "./examples.js";
import { compileValidator, SchemaValidationError } from "./validate.js";
import {
  assertJobSpec,
  validateJobRecord,
  validateJobSpec,
  validatePredictionRequest,
  validateUsageSample,
} from "./validators.js";

const clone = <T>(v: T): T => structuredClone(v);

// Formats another program defines (the Kubernetes API server, SLURM's option table): fields
// they add in later versions must not make a submission fail, so these accept unknown fields.
const OPEN_SCHEMAS = new Set(["AdmissionReviewRequest", "SlurmAdviceRequest"]);

describe("every wire contract", () => {
  for (const [name, schema] of Object.entries(wireSchemas)) {
    const validator = compileValidator(schema, name);
    const example = (validExamples as Record<string, unknown>)[name];

    it(`${name} has a valid example that validates`, () => {
      expect(example, `no example for ${name}`).toBeDefined();
      expect(validator.validate(example)).toEqual({ ok: true, value: example });
    });

    if (OPEN_SCHEMAS.has(name)) {
      it(`${name} accepts a field a later version of its sender adds`, () => {
        expect(validator.validate({ ...(clone(example) as object), notAField: 1 }).ok).toBe(true);
      });
    } else {
      it(`${name} rejects an unknown field and names it`, () => {
        const bad = { ...(clone(example) as object), notAField: 1 };
        const result = validator.validate(bad);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.errors.map((e) => e.path)).toContain("/notAField");
      });
    }

    it(`${name} rejects a non-object body at the root`, () => {
      const result = validator.validate("nope");
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[0].path).toBe("");
    });
  }
});

describe("errors name the offending field", () => {
  it("names a wrong type deep inside a job spec", () => {
    const spec = clone(validExamples.JobSpec) as { requested: { memoryBytes: unknown } };
    spec.requested.memoryBytes = "64G";
    const result = validateJobSpec(spec);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toEqual([
        { path: "/requested/memoryBytes", message: expect.stringMatching(/integer/i) },
      ]);
  });

  it("lists every offending field at once", () => {
    const spec = clone(validExamples.JobSpec) as Record<string, unknown>;
    spec.cluster = "Not A Cluster!";
    spec.user = "";
    (spec.requested as Record<string, unknown>).walltimeSeconds = -5;
    const result = validateJobSpec(spec);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((e) => e.path).sort()).toEqual([
        "/cluster",
        "/requested/walltimeSeconds",
        "/user",
      ]);
    }
  });

  it("names a missing required field", () => {
    const { user: _, ...spec } = clone(validExamples.JobSpec) as Record<string, unknown>;
    const result = validateJobSpec(spec);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.some((e) => e.path === "/user")).toBe(true);
  });

  it("rejects an impossible timestamp", () => {
    const record = clone(validExamples.JobRecord) as Record<string, unknown>;
    record.submittedAt = "2026-13-45T99:00:00Z";
    const result = validateJobRecord(record);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0].path).toBe("/submittedAt");
  });

  it("rejects an unknown job state", () => {
    const record = clone(validExamples.JobRecord) as { outcome: { state: string } };
    record.outcome.state = "EXPLODED";
    const result = validateJobRecord(record);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0].path).toBe("/outcome/state");
  });

  it("rejects GPU utilisation above 100% in a sample", () => {
    const sample = clone(validExamples.UsageSample) as { gpus: { utilizationPercent: number }[] };
    sample.gpus[0].utilizationPercent = 140;
    const result = validateUsageSample(sample);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0].path).toBe("/gpus/0/utilizationPercent");
  });

  it("rejects an unknown resource name in a prediction request", () => {
    const req = clone(validExamples.PredictionRequest) as { resources: string[] };
    req.resources = ["memory", "disk"];
    const result = validatePredictionRequest(req);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0].path).toBe("/resources/1");
  });

  it("assert throws a SchemaValidationError with a stable code and the field list", () => {
    try {
      assertJobSpec({ cluster: "hpc1" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaValidationError);
      const e = error as SchemaValidationError;
      expect(e.code).toBe("VALIDATION_FAILED");
      expect(e.errors.map((x) => x.path)).toEqual(
        expect.arrayContaining(["/scheduler", "/user", "/requested"]),
      );
      expect(e.message).toMatch(/\/user/);
    }
  });
});
