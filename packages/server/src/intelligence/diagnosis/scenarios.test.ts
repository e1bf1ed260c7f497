import {
  validateDiagnosis,
  validateJobRecord,
  validateNodeEvent,
  validateUsageSample,
} from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { diagnose } from "./diagnose.js";
import { checkEvidence } from "./evidence-check.js";
import { diagnosisScenarios } from "./scenarios/all-scenarios.js";

const NOW = "2026-12-01T00:00:00Z";

describe("diagnosis scenarios", () => {
  it("has unique names", () => {
    const names = diagnosisScenarios.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
  });

  describe.each(diagnosisScenarios.map((s) => [s.name, s] as const))("%s", (_name, scenario) => {
    const { input, expect: want } = scenario;
    const d = diagnose(input, { now: NOW });

    it("is built from inputs in the wire formats", () => {
      expect(errorsOf(validateJobRecord(input.record))).toEqual([]);
      for (const s of input.samples) expect(errorsOf(validateUsageSample(s))).toEqual([]);
      for (const e of input.events) expect(errorsOf(validateNodeEvent(e))).toEqual([]);
    });

    it("produces a valid Diagnosis", () => {
      expect(errorsOf(validateDiagnosis(d))).toEqual([]);
    });

    it("finds the expected findings and nothing else", () => {
      expect(d.findings.map((f) => f.kind).sort()).toEqual([...want.findings].sort());
    });

    it("cites only evidence that exists in the input", () => {
      expect(checkEvidence(d, input)).toEqual([]);
    });

    it("lists what it could not see", () => {
      expect([...new Set(d.unseen.map((u) => u.source))].sort()).toEqual([...new Set(want.unseen)].sort());
    });

    it("says whether the cause was determined", () => {
      expect(d.causeDetermined).toBe(want.causeDetermined);
      if (!want.causeDetermined) expect(d.summary).toContain("Cause not determined");
    });

    it("makes the claims the data supports, and only those", () => {
      for (const [kind, phrases] of Object.entries(want.claims ?? {})) {
        const claim = d.findings.find((f) => f.kind === kind)?.claim ?? "";
        for (const p of phrases ?? [])
          expect(claim).toMatch(typeof p === "string" ? new RegExp(escapeRe(p)) : p);
      }
      const all = d.findings.map((f) => f.claim).join("\n");
      for (const p of want.neverClaims ?? [])
        expect(all).not.toMatch(typeof p === "string" ? new RegExp(escapeRe(p)) : p);
    });

    it("ranks every finding in order and gives it the span it covers", () => {
      expect(d.findings.map((f) => f.rank)).toEqual(d.findings.map((_f, i) => i + 1));
      for (const f of d.findings) {
        expect(f.window).toBeDefined();
        expect(Date.parse(f.window!.start)).toBeLessThanOrEqual(Date.parse(f.window!.end));
      }
    });
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function errorsOf(r: { ok: true } | { ok: false; errors: unknown[] }): unknown[] {
  return r.ok ? [] : r.errors;
}
